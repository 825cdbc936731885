package ui

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// The overview's boxes' lines, each from the latest readings, for a box
// w cells wide inside.

// portLines: each port's state and rate, what it sends and receives now
// with a sparkline of the sum, and its error counters.
func (v *overviewView) portLines(w int) []string {
	th, sys := v.c.theme, v.c.sys
	if sys == nil {
		return []string{th.Render(themes.SlotDim, "reading sysfs…")}
	}
	flows := map[string]portFlow{}
	for _, f := range sys.flows {
		flows[f.Dev+"/"+itoa(f.Port)] = f
	}
	var out []string
	for _, d := range sys.u.Devices {
		if v.c.skipDev(d.Name) {
			continue
		}
		for _, p := range d.Ports {
			name := d.Name + "/" + itoa(p.Port)
			slot := themes.SlotOK
			if !p.State.Up() {
				slot = themes.SlotError
			}
			l := padTo(name, 9) + th.Render(slot, padTo(stateName(p.StateName), 6)) + padTo(shortRate(p.RateText), 11)
			f, ok := flows[name]
			switch {
			case !ok || f.Unit == sysfsmon.UnitEvents:
				l += th.Render(themes.SlotDim, "no traffic counters")
			case !f.Rated:
				l += th.Render(themes.SlotDim, "measuring…")
			default:
				l += "↑" + flowText(f.Unit, f.TX) + " ↓" + flowText(f.Unit, f.RX)
			}
			if ok && f.Errors > 0 {
				es := themes.SlotWarn
				if f.ErrRate > 0 {
					es = themes.SlotError
				}
				l += " " + th.Render(es, "errors "+strconv.FormatUint(f.Errors, 10))
			}
			// The sparkline takes what is left of the line.
			if room := w - width(l) - 2; ok && f.Rated && f.Unit != sysfsmon.UnitEvents && room >= 6 {
				l += "  " + sparkline(f.Hist[max(0, len(f.Hist)-room):], th.ASCII)
			}
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		return []string{th.Render(themes.SlotWarn, "no RDMA devices in /sys/class/infiniband")}
	}
	return out
}

// shortRate is a port's rate without its lanes: "10 Gb/sec".
func shortRate(s string) string {
	if f := strings.Fields(s); len(f) >= 2 {
		return f[0] + " " + f[1]
	}
	return s
}

// flowText is a rate in its unit, as `verbscope counters` prints it.
func flowText(u sysfsmon.CounterUnit, r float64) string {
	c := sysfsmon.CounterRate{Counter: sysfsmon.Counter{Group: "hw_counters", Name: "tx_bytes"}, Rate: r}
	if u == sysfsmon.UnitPackets {
		c.Name = "tx_pkts"
	}
	f, _ := c.Row(true).Get("rate")
	return f.Text
}

// qpLines: each device's QPs by state, a bar per process by its QPs,
// then the QPs in ERR or SQE and the stuck ones by name.
func (v *overviewView) qpLines(w int) []string {
	th, res := v.c.theme, v.c.res
	if res == nil || res.frame.Snapshot == nil {
		return []string{th.Render(themes.SlotDim, "reading RDMA netlink…")}
	}
	devs, byDev := v.countStates(res.frame.Snapshot)
	var out []string
	for _, d := range devs {
		n := 0
		var states []rdma.QPState
		for s, c := range byDev[d] {
			states, n = append(states, s), n+c
		}
		slices.Sort(states)
		l := padTo(d, 8) + padTo(plural(n, "QP"), 8)
		for _, s := range states {
			l += " " + stateCount(th, s, byDev[d][s])
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		out = append(out, th.Render(themes.SlotDim, "no QPs on this host"))
	}
	if c := v.c.causeCounts(); c != "" {
		out = append(out, th.Render(themes.SlotWarn, padTo("causes", 8))+c)
	}
	u := res.frame.Update
	for _, a := range u.Failed {
		out = append(out, th.Render(themes.SlotError, padTo(a.State.String(), 5)+a.Key.String())+"  "+procName(a.PID, a.Comm))
	}
	for _, a := range u.Stuck {
		out = append(out, th.Render(themes.SlotWarn, "stuck "+a.Key.String())+"  "+procName(a.PID, a.Comm)+"  "+a.Evidence)
	}
	return append(out, v.ownerBars(u.Processes, w)...)
}

// qpStates is each device's QPs counted by state, of the QPs of
// generation gen (inspect.Snapshot.Generation).
type qpStates struct {
	gen   uint64
	devs  []string
	byDev map[string]map[rdma.QPState]int
}

// countStates counts each device's QPs in s by state, devices in name
// order. The counts of the last QPs counted are kept while their
// generation stands: an idle host's readings hand over the same QPs,
// and the overview draws several frames a reading.
func (v *overviewView) countStates(s *inspect.Snapshot) ([]string, map[string]map[rdma.QPState]int) {
	gen := s.Generation(rdma.KindQP)
	if c := v.states; c != nil && gen != 0 && c.gen == gen {
		return c.devs, c.byDev
	}
	qps := s.QPs
	c := &qpStates{gen: gen, byDev: map[string]map[rdma.QPState]int{}}
	for i := range qps {
		q := &qps[i]
		if v.c.skipDev(q.DevName) {
			continue
		}
		if c.byDev[q.DevName] == nil {
			c.byDev[q.DevName] = map[rdma.QPState]int{}
			c.devs = append(c.devs, q.DevName)
		}
		c.byDev[q.DevName][q.State]++
	}
	slices.Sort(c.devs)
	v.states = c
	return c.devs, c.byDev
}

// stateCount is "RTS 3", coloured as the header colours states.
func stateCount(th *themes.Theme, s rdma.QPState, n int) string {
	txt := s.String() + " " + itoa(n)
	switch {
	case s.Failed():
		return th.Render(themes.SlotError, txt)
	case s == rdma.QPStateRTS:
		return th.Render(themes.SlotOK, txt)
	}
	return txt
}

// procName names a process as the events and overview do: comm[pid],
// or [name] for the kernel.
func procName(pid uint32, comm string) string {
	if pid == 0 {
		if comm == "" {
			return ""
		}
		return "[" + view.Printable(comm) + "]"
	}
	return view.Printable(comm) + "[" + strconv.FormatUint(uint64(pid), 10) + "]"
}

// ownerBars are a bar per process, longest first, by its QPs on every
// device.
func (v *overviewView) ownerBars(procs []inspect.ProcessUsage, w int) []string {
	type proc struct {
		pid  uint32
		comm string
		qps  int
	}
	byPID := map[uint32]*proc{}
	for _, p := range procs {
		if v.c.skipDev(p.Dev) || p.Counts[rdma.KindQP] == 0 || p.PID == 0 {
			continue
		}
		if byPID[p.PID] == nil {
			byPID[p.PID] = &proc{pid: p.PID, comm: p.Comm}
		}
		byPID[p.PID].qps += p.Counts[rdma.KindQP]
	}
	var ps []*proc
	top := 0
	for _, p := range byPID {
		ps, top = append(ps, p), max(top, p.qps)
	}
	slices.SortFunc(ps, func(a, b *proc) int { return cmp.Or(b.qps-a.qps, cmp.Compare(a.pid, b.pid)) })
	bar := "█"
	if v.c.theme.ASCII {
		bar = "#"
	}
	room := max(1, w-32)
	var out []string
	for _, p := range ps {
		n := max(1, p.qps*room/max(1, top))
		out = append(out, padTo(procName(p.pid, p.comm), 24)+padTo(itoa(p.qps), 5)+v.c.theme.Render(themes.SlotAccent, strings.Repeat(bar, n)))
	}
	return out
}

// irqLines: each device's IRQs, the CPUs they are sent to against those
// allowed, and a strip of the interrupt rate on each CPU; a device with
// none says why (rxe is software: it has no interrupts of its own).
func (v *overviewView) irqLines(int) []string {
	th, sys := v.c.theme, v.c.sys
	if sys == nil || sys.u.IRQs == nil {
		if note := v.noteOf("irq"); note != "" {
			return []string{th.Render(themes.SlotDim, note)}
		}
		return []string{th.Render(themes.SlotDim, "reading /proc/interrupts…")}
	}
	var out []string
	for i := range sys.u.IRQs.Devices {
		d := &sys.u.IRQs.Devices[i]
		if v.c.skipDev(d.Device) {
			continue
		}
		if len(d.IRQs) == 0 {
			out = append(out, padTo(d.Device, 8)+th.Render(themes.SlotDim, "no IRQs: "+d.NoIRQs))
			continue
		}
		eff := map[string]bool{}
		allCPU0 := len(d.IRQs) > 1
		for _, q := range d.IRQs {
			eff[q.Effective] = true
			allCPU0 = allCPU0 && q.Effective == "0"
		}
		cpus := slices.Sorted(func(yield func(string) bool) {
			for c := range eff {
				if !yield(c) {
					return
				}
			}
		})
		l := padTo(d.Device, 8) + padTo(plural(len(d.IRQs), "IRQ"), 8) + "on CPUs " + strings.Join(cpus, ",")
		if allCPU0 {
			l += " " + th.Render(themes.SlotWarn, "all on CPU0")
		}
		perCPU := make([]float64, len(sys.u.IRQs.CPUs))
		for _, r := range d.RatesOf(sys.u.IRQRates) {
			for j, x := range r.PerCPU {
				if j < len(perCPU) {
					perCPU[j] += x
				}
			}
		}
		if sys.u.IRQRates != nil {
			l += "  " + sparkline(perCPU, th.ASCII)
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		out = append(out, th.Render(themes.SlotDim, "no RDMA devices"))
	}
	return out
}

// noteOf is why a sysfs view is empty, when the reading said.
func (v *overviewView) noteOf(view string) string {
	if v.c.sys == nil {
		return ""
	}
	return v.c.sys.notes[view]
}

// eventLines: the alerts, then the newest events first; at most n
// lines (no box is taller than the body), and how many more there are:
// the events view keeps up to maxEvents, which no frame draws.
func (v *overviewView) eventLines(alerts []string, n int) (lines []string, more int) {
	th := v.c.theme
	var out []string
	for _, a := range alerts {
		out = append(out, th.Render(themes.SlotError, "! "+a))
	}
	if v.c.res == nil {
		return append(out, th.Render(themes.SlotDim, "reading RDMA netlink…")), 0
	}
	ev := v.c.res.events
	for i := len(ev) - 1; i >= 0; i-- {
		if len(out) >= n {
			return out, i + 1
		}
		out = append(out, markText(th, ev[i].Mark)+strings.Join(ev[i].Cells, " "))
	}
	if len(out) == 0 {
		out = append(out, th.Render(themes.SlotOK, "no alerts; nothing happened yet"))
	}
	return out, 0
}
