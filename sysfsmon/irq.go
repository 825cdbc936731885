package sysfsmon

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// IRQ is one interrupt of a device: its /proc/interrupts row and its
// /proc/irq/<N> settings (Documentation/core-api/irq/irq-affinity.rst,
// Documentation/filesystems/proc.rst).
type IRQ struct {
	IRQ   int    `json:"irq"`
	Name  string `json:"name"`  // the handler's name: "mlx5_comp0@pci:0000:3b:00.0"
	Chip  string `json:"chip"`  // "IR-PCI-MSIX-0000:3b:00.0", "PCI-MSI"
	HWIRQ string `json:"hwirq"` // "0-edge"
	// Mode is "msix" or "msi" (the PCI function's msi_irqs/<N>), "intx"
	// for a legacy line (its irq file), or "" for an IRQ found by name only.
	Mode string `json:"mode"`
	// MatchedBy says how the IRQ was tied to the device: "msi_irqs",
	// "intx", or "name", "netdev", "pci" for a /proc/interrupts row that
	// names the device, one of its netdevs, or its PCI address.
	MatchedBy string `json:"matched_by"`
	// Listed is false for a vector the device allocated (msi_irqs) that
	// no handler has requested yet: it has no /proc/interrupts row.
	Listed bool     `json:"listed"`
	Counts []uint64 `json:"per_cpu"` // per CPU, in IRQSnapshot.CPUs order
	Total  uint64   `json:"total"`
	// Affinity is smp_affinity_list: the CPUs the IRQ may be sent to.
	Affinity string `json:"smp_affinity_list"`
	// Effective is effective_affinity_list: the CPU(s) it really goes to.
	Effective string `json:"effective_affinity_list"`
	// Hint is affinity_hint as a CPU list ("" when the driver gives none).
	Hint string `json:"affinity_hint"`
	// Node is the IRQ's NUMA node (node); -1 for none.
	Node int `json:"node"`
}

// DeviceIRQs is a device with its interrupts.
type DeviceIRQs struct {
	Device   string   `json:"dev"`
	PCI      string   `json:"pci"`
	NUMANode *int     `json:"numa_node"`
	Netdevs  []string `json:"netdevs"`
	Soft     bool     `json:"soft"`
	IRQs     []IRQ    `json:"irqs"`
	// NoIRQs says why IRQs is empty: a software device has none of its
	// own, a hardware one may not be bound to its driver.
	NoIRQs   string    `json:"no_irqs,omitempty"`
	Warnings []Warning `json:"warnings"`
}

// IRQSnapshot is the interrupts of every RDMA device at one moment.
type IRQSnapshot struct {
	Time     time.Time    `json:"time"`
	CPUs     []int        `json:"cpus"` // the CPU columns of /proc/interrupts
	Devices  []DeviceIRQs `json:"devices"`
	Warnings []Warning    `json:"warnings"`
}

// readInterrupts reads and parses /proc/interrupts. Odd rows become warnings.
func (f *FS) readInterrupts() (interrupts, []Warning, error) {
	path := f.procPath("interrupts")
	s, err := f.read(path)
	if err != nil {
		return interrupts{}, nil, fmt.Errorf("sysfsmon: interrupts: %w", err)
	}
	in, err := parseInterrupts(s)
	if len(in.CPUs) == 0 {
		return interrupts{}, nil, fmt.Errorf("sysfsmon: interrupts: %s: %w", f.logical(path), err)
	}
	var ws warnings
	if err != nil {
		ws.add(f, path, err)
	}
	return in, ws, nil
}

// IRQs finds the interrupts of every RDMA device: the MSI/MSI-X vectors
// in the PCI function's msi_irqs/ (Documentation/ABI/testing/
// sysfs-bus-pci), its legacy irq line when it has no MSI, and the rows of
// /proc/interrupts that name the device, one of its netdevs or its PCI
// address. Software devices (rxe, siw) have none, and say so in NoIRQs.
func (f *FS) IRQs() (*IRQSnapshot, error) {
	names, err := f.DeviceNames()
	if err != nil {
		return nil, err
	}
	in, ws, err := f.readInterrupts()
	if err != nil {
		return nil, err
	}
	snap := &IRQSnapshot{Time: f.now(), CPUs: in.CPUs, Warnings: ws}
	rows := map[int]interruptLine{}
	for _, l := range in.Lines {
		if l.Num >= 0 {
			rows[l.Num] = l
		}
	}
	for _, n := range names {
		snap.Devices = append(snap.Devices, f.deviceIRQs(n, in, rows))
	}
	return snap, nil
}

func (f *FS) deviceIRQs(name string, in interrupts, rows map[int]interruptLine) DeviceIRQs {
	var ws warnings
	d := Device{Name: name}
	d.Parent = f.optional(&ws, f.sysPath(classIB, name, "parent"))
	pciDir := f.readPlacement(&ws, &d)
	di := DeviceIRQs{Device: name, PCI: d.PCI, NUMANode: d.NUMANode, Netdevs: d.Netdevs, Soft: d.Soft}
	if d.Soft {
		di.NoIRQs = "software device: it has no interrupts of its own"
		if d.Parent != "" {
			di.NoIRQs = fmt.Sprintf("software device on %s: it has no interrupts of its own; its packets arrive through %s's and its completions run in kernel threads", d.Parent, d.Parent)
		}
		di.Warnings = ws
		return di
	}
	found := map[int]bool{}
	add := func(num int, mode, how string) {
		if found[num] {
			return
		}
		found[num] = true
		di.IRQs = append(di.IRQs, f.readIRQ(&ws, num, mode, how, rows))
	}
	if pciDir != "" {
		msi, err := f.listDir(filepath.Join(pciDir, "msi_irqs"))
		if err != nil {
			ws.add(f, filepath.Join(pciDir, "msi_irqs"), err)
		}
		for _, n := range numericNames(msi) {
			mode := f.optional(&ws, filepath.Join(pciDir, "msi_irqs", strconv.Itoa(n)))
			add(n, mode, "msi_irqs")
		}
		if len(found) == 0 {
			if line := f.optionalUint(&ws, filepath.Join(pciDir, "irq"), 32); line > 0 {
				add(int(line), "intx", "intx")
			}
		}
	}
	tokens := []struct{ text, how string }{{name, "name"}}
	for _, n := range d.Netdevs {
		tokens = append(tokens, struct{ text, how string }{n, "netdev"})
	}
	if d.PCI != "" {
		tokens = append(tokens, struct{ text, how string }{d.PCI, "pci"})
	}
	for _, l := range in.Lines {
		if l.Num < 0 || found[l.Num] {
			continue
		}
		for _, t := range tokens {
			if containsToken(l.Name, t.text) || containsToken(l.Chip, t.text) {
				add(l.Num, "", t.how)
				break
			}
		}
	}
	slices.SortFunc(di.IRQs, func(a, b IRQ) int { return a.IRQ - b.IRQ })
	if len(di.IRQs) == 0 {
		di.NoIRQs = fmt.Sprintf("no MSI/MSI-X vectors, no legacy IRQ line, and no /proc/interrupts row names %s", strings.Join(tokenTexts(tokens), ", "))
		di.NoIRQs += ": is the driver bound and the device up?"
	}
	di.Warnings = ws
	return di
}

func tokenTexts(ts []struct{ text, how string }) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.text)
	}
	return out
}

// containsToken reports whether tok occurs in s with no letter or digit
// right before or after it, so "eth0" matches "eth0-TxRx-0" and
// "mlx5_comp0@pci:0000:3b:00.0" matches 0000:3b:00.0, but "eth0" does not
// match "veth0" or "eth01".
func containsToken(s, tok string) bool {
	if tok == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(tok)
		if (start == 0 || !isAlnum(s[start-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// readIRQ joins an IRQ's /proc/interrupts row with /proc/irq/<N>.
func (f *FS) readIRQ(ws *warnings, num int, mode, how string, rows map[int]interruptLine) IRQ {
	q := IRQ{IRQ: num, Mode: mode, MatchedBy: how, Node: -1}
	if l, ok := rows[num]; ok {
		q.Listed, q.Name, q.Chip, q.HWIRQ = true, l.Name, l.Chip, l.HWIRQ
		q.Counts, q.Total = l.Counts, l.total()
	}
	dir := f.procPath("irq", strconv.Itoa(num))
	list := func(file string) string {
		path := filepath.Join(dir, file)
		s, err := f.read(path)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				ws.add(f, path, err)
			}
			return ""
		}
		cpus, err := parseCPUList(s)
		if err != nil {
			ws.add(f, path, err)
			return ""
		}
		return formatCPUList(cpus)
	}
	q.Affinity = list("smp_affinity_list")
	q.Effective = list("effective_affinity_list")
	if s := f.optional(ws, filepath.Join(dir, "affinity_hint")); s != "" {
		cpus, err := parseCPUMask(s)
		if err != nil {
			ws.add(f, filepath.Join(dir, "affinity_hint"), err)
		}
		q.Hint = formatCPUList(cpus)
	}
	if s := f.optional(ws, filepath.Join(dir, "node")); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			ws.add(f, filepath.Join(dir, "node"), fmt.Errorf("not a node number: %q", s))
		} else {
			q.Node = n
		}
	}
	return q
}

// IRQRate is one IRQ's interrupts per second between two snapshots.
type IRQRate struct {
	Device string    `json:"dev"`
	IRQ    int       `json:"irq"`
	Name   string    `json:"name"`
	PerCPU []float64 `json:"per_cpu_rate"` // per CPU, in IRQSnapshot.CPUs order
	Rate   float64   `json:"rate"`         // all CPUs together
	Delta  uint64    `json:"delta"`
}

// RatesOf picks the device's IRQs out of rates (IRQRates of the whole
// host), in their order there.
func (d *DeviceIRQs) RatesOf(rates []IRQRate) []IRQRate {
	var out []IRQRate
	for _, r := range rates {
		if r.Device == d.Device {
			out = append(out, r)
		}
	}
	return out
}

// IRQRates compares two IRQ snapshots: for every IRQ of a device in both,
// its interrupts per second on each CPU. A count that went down (an IRQ
// number reused by another handler) counts as 0.
func IRQRates(prev, cur *IRQSnapshot) ([]IRQRate, error) {
	dt := cur.Time.Sub(prev.Time).Seconds()
	if dt <= 0 {
		return nil, fmt.Errorf("sysfsmon: irq rates: %w", ErrInterval)
	}
	before := map[string][]uint64{}
	for _, d := range prev.Devices {
		for _, q := range d.IRQs {
			before[d.Device+"/"+strconv.Itoa(q.IRQ)] = q.Counts
		}
	}
	var rates []IRQRate
	for _, d := range cur.Devices {
		for _, q := range d.IRQs {
			old, ok := before[d.Device+"/"+strconv.Itoa(q.IRQ)]
			if !ok {
				continue
			}
			r := IRQRate{Device: d.Device, IRQ: q.IRQ, Name: q.Name, PerCPU: make([]float64, len(q.Counts))}
			for i, c := range q.Counts {
				if i < len(old) && c >= old[i] {
					r.Delta += c - old[i]
					r.PerCPU[i] = float64(c-old[i]) / dt
				}
			}
			r.Rate = float64(r.Delta) / dt
			rates = append(rates, r)
		}
	}
	return rates, nil
}
