package counters

import (
	"cmp"
	"slices"
	"sync"
)

// entry is one counter of one driver ("" for the IBTA PortCounters every
// IB driver answers for under ports/N/counters/).
type entry struct {
	driver string
	Info
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
		out = append(out, entry{driver, Info{Name: r.name, Meaning: r.meaning, Class: r.class, Side: r.side,
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

// tables are every driver's, each in its own file.
var tables = [][]entry{
	portCounters(), rxeTable(), mlx5Table(), mlx4Table(), bnxtTable(), irdmaTable(), i40iwTable(),
	efaTable(), hnsTable(), erdmaTable(), hfi1Table(),
}

var (
	indexOnce sync.Once
	byDriver  map[string]map[string]Info
	byName    map[string][]Info
	sorted    []Entry
)

func index() {
	byDriver = map[string]map[string]Info{}
	byName = map[string][]Info{}
	for _, t := range tables {
		for _, e := range t {
			e.Info.Explain = explain(e.driver, e.Info)
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
		if in, ok := byDriver[driver][name]; ok {
			return in, true
		}
		in, ok := byDriver[""][name]
		return in, ok
	}
	all := byName[name]
	if len(all) == 0 {
		return Info{}, false
	}
	for _, in := range all[1:] {
		if in.Class != all[0].Class || in.Signal != all[0].Signal || in.Terminal != all[0].Terminal || in.Side != all[0].Side {
			return Info{}, false
		}
	}
	return all[0], true
}
