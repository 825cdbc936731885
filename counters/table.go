package counters

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// entry is one counter of one driver ("" for the IBTA PortCounters every
// IB driver answers for under ports/N/counters/), or one family of them
// (numbered set).
type entry struct {
	driver string
	Info
	numbered *numbers
}

// numbers is a family of counters a driver repeats per virtual lane, DMA
// engine or receive context, each named stem, then one of nums in
// decimal, then tail: hfi1's "DcRxFlitVl3" and "SDMAInt12,32" (chip.c,
// init_cntrs, which appends the number and then ",32" for a 32-bit
// counter).
type numbers struct {
	stem, tail string
	nums       []int
}

// name is how All lists the family: the numbers in brackets where the
// number goes, runs shortened ("DcRxFlitVl[0-7,15]").
func (n *numbers) name() string {
	var parts []string
	for i := 0; i < len(n.nums); {
		j := i
		for j+1 < len(n.nums) && n.nums[j+1] == n.nums[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(n.nums[i])+"-"+strconv.Itoa(n.nums[j]))
		} else {
			parts = append(parts, strconv.Itoa(n.nums[i]))
		}
		i = j + 1
	}
	return n.stem + "[" + strings.Join(parts, ",") + "]" + n.tail
}

// match reports whether name is one of the family's.
func (n *numbers) match(name string) bool {
	if len(name) <= len(n.stem)+len(n.tail) || !strings.HasPrefix(name, n.stem) || !strings.HasSuffix(name, n.tail) {
		return false
	}
	digits := name[len(n.stem) : len(name)-len(n.tail)]
	if len(digits) > 1 && digits[0] == '0' {
		return false // the kernel prints %d: no leading zeros
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	v, err := strconv.Atoi(digits)
	return err == nil && slices.Contains(n.nums, v)
}

// span is the numbers from first to last.
func span(first, last int) []int {
	out := make([]int, 0, last-first+1)
	for i := first; i <= last; i++ {
		out = append(out, i)
	}
	return out
}

// family turns rows into families of driver, each row's name the stem
// of the numbers nums, then tail.
func family(driver, source string, bits int, tail string, nums []int, rows ...spec) []entry {
	out := group(driver, source, bits, rows...)
	for i := range out {
		n := &numbers{stem: out[i].Name, tail: tail, nums: nums}
		out[i].Name, out[i].numbered = n.name(), n
	}
	return out
}

// spec is one row of a driver's table, kept positional so the tables
// read as tables: name, class, side, signal, terminal, meaning and,
// where the general text of explain.go would not do, a long explanation.
type spec struct {
	name     string
	class    Class
	side     Side
	signal   Signal
	terminal bool
	meaning  string
	explain  string
}

// group turns a driver's rows into entries, all with the same source and
// width.
func group(driver, source string, bits int, rows ...spec) []entry {
	out := make([]entry, 0, len(rows))
	for _, r := range rows {
		out = append(out, entry{driver: driver, Info: Info{Name: r.name, Meaning: r.meaning, Class: r.class, Side: r.side,
			Terminal: r.terminal, Bits: bits, Signal: r.signal, Explain: r.explain, Source: source}})
	}
	return out
}

// prefixed is rows with every name prefixed: mlx5's vport_ counters of a
// switchdev representor are the same q counters read for another vport.
func prefixed(prefix string, rows []spec) []spec {
	out := make([]spec, len(rows))
	for i, r := range rows {
		r.name = prefix + r.name
		out[i] = r
	}
	return out
}

// tables are every driver's, each in its own file; built by the first
// lookup (index), not at every verbscope command's start.
func tables() [][]entry {
	return [][]entry{
		portCounters(), rxeTable(), mlx5Table(), mlx4Table(), bnxtTable(), irdmaTable(), i40iwTable(),
		efaTable(), hnsTable(), erdmaTable(), hfi1Table(),
	}
}

var (
	indexOnce sync.Once
	byDriver  map[string]map[string]Info
	byName    map[string][]Info
	families  map[string][]familyInfo // by driver
	sorted    []Entry
)

// familyInfo is a family's numbers and what each of them means.
type familyInfo struct {
	*numbers
	Info
}

func index() {
	byDriver = map[string]map[string]Info{}
	byName = map[string][]Info{}
	families = map[string][]familyInfo{}
	for _, t := range tables() {
		for _, e := range t {
			e.Info.Explain = explain(e.driver, e.Info)
			if e.numbered != nil {
				families[e.driver] = append(families[e.driver], familyInfo{e.numbered, e.Info})
				sorted = append(sorted, Entry{Driver: e.driver, Info: e.Info})
				continue
			}
			if byDriver[e.driver] == nil {
				byDriver[e.driver] = map[string]Info{}
			}
			if _, dup := byDriver[e.driver][e.Name]; dup {
				continue // the first row wins; TestNoDuplicates names any
			}
			byDriver[e.driver][e.Name] = e.Info
			byName[e.Name] = append(byName[e.Name], e.Info)
			sorted = append(sorted, Entry{Driver: e.driver, Info: e.Info})
		}
	}
	slices.SortFunc(sorted, func(a, b Entry) int {
		return cmp.Or(cmp.Compare(a.Driver, b.Driver), cmp.Compare(a.Name, b.Name))
	})
}

func lookup(driver, name string) (Info, bool) {
	indexOnce.Do(index)
	name = normalName(name)
	if driver != "" {
		if in, ok := own(driver, name); ok {
			return in, true
		}
		in, ok := byDriver[""][name]
		return in, ok
	}
	all := byName[name]
	if len(all) == 0 {
		for d := range families {
			if in, ok := inFamily(d, name); ok {
				all = append(all, in)
			}
		}
	}
	return agreed(all)
}

// own is the driver's own entry for name (not the PortCounters'): its
// row, else the family name is one of, with Name set to name.
func own(driver, name string) (Info, bool) {
	if in, ok := byDriver[driver][name]; ok {
		return in, true
	}
	return inFamily(driver, name)
}

func inFamily(driver, name string) (Info, bool) {
	for _, f := range families[driver] {
		if f.match(name) {
			in := f.Info
			in.Name = name
			return in, true
		}
	}
	return Info{}, false
}

// agreed is what every one of infos says, if they agree on class, side,
// signal and terminal; nothing else is guessed.
func agreed(infos []Info) (Info, bool) {
	if len(infos) == 0 {
		return Info{}, false
	}
	for _, in := range infos[1:] {
		if in.Class != infos[0].Class || in.Signal != infos[0].Signal || in.Terminal != infos[0].Terminal || in.Side != infos[0].Side {
			return Info{}, false
		}
	}
	return infos[0], true
}
