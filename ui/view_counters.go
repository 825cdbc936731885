package ui

import (
	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// countersSpec is the ports' counters and hw_counters with rates: a sysfs
// view (view_sysfs.go) whose rows add each counter's sparkline of its
// recent rates and what the counter registry says it means; enter (or ?)
// on a counter explains it at length (counterDetail).
var countersSpec = sysfsSpec("counters", "counters", "port and hardware counters with rates", "counters", []column{
	col("dev", "dev", 0, false), col("port", "port", 0, true), col("group", "group", 3, false),
	col("name", "counter", 0, false), col("value", "value", 1, true), col("rate", "rate", 0, true),
	{Key: "spark", Title: "recent", Prio: 2}, {Key: "meaning", Title: "meaning", Prio: 2, Max: 60}},
	"counter", "stat")

// counterDetail is the long explanation of the counter a row shows, from
// the registry (counters.Info.Explain): what raises it, what it usually
// means, what to check next; or that the registry does not know it.
func counterDetail(th *themes.Theme, r view.Row) []string {
	field := func(k string) string {
		if f, ok := r.Get(k); ok {
			if s, ok := f.Value.(string); ok {
				return s
			}
		}
		return ""
	}
	name, drv := field("name"), field("driver")
	in, ok := counters.Lookup(drv, name)
	head := func(t string) string { return th.Render(themes.SlotHeader, padTo(t, 16)) }
	if !ok {
		return []string{"", head("explain") + "the counter registry does not know " + name + " of driver " + dash(drv) +
			": its meaning is not guessed from its name; see the driver's documentation."}
	}
	out := []string{"",
		head("class") + string(in.Class) + terminalWord(in.Terminal),
		head("side") + string(in.Side),
	}
	if in.Signal != counters.SignalNone {
		out = append(out, head("signal")+string(in.Signal))
	}
	switch {
	case in.Saturates:
		out = append(out, head("width")+itoa(in.Bits)+" bits (stops at its top)")
	case in.Bits > 0 && in.Bits < 64:
		out = append(out, head("width")+itoa(in.Bits)+" bits (wraps to 0)")
	case in.Bits == 64:
		out = append(out, head("width")+"64 bits")
	}
	return append(out, head("explain")+in.Explain)
}

func terminalWord(t bool) string {
	if t {
		return ", terminal: a rise means a request failed for good"
	}
	return ", recoverable"
}

func (p *sysBuilder) counters(d *sysData, u sysfsmon.Update, ascii bool) {
	if u.Counters == nil {
		d.notes["counters"] = "no counter reading (see the alerts line)"
		return
	}
	cols := sysfsColumns["counters"]
	index := colIndex(cols)
	rates := u.CounterValues() // the first reading: values without rates
	p.flows(d, u, rates)
	live := map[string]bool{}
	for i := range rates {
		r := &rates[i]
		if p.skip(r.Device) {
			continue
		}
		row := fromFields(cols, index, r.Row(u.CounterRates != nil))
		live[row.Key] = true
		if u.CounterRates != nil && !r.Reset {
			h := append(p.rates[row.Key], r.Rate)
			if len(h) > sparkLen {
				h = h[len(h)-sparkLen:]
			}
			p.rates[row.Key] = h
		}
		row.Cells[index["spark"]] = sparkline(p.rates[row.Key], ascii)
		if r.Error && r.Value > 0 {
			row.Mark = markError
		}
		d.rows["counters"] = append(d.rows["counters"], row)
	}
	for k := range p.rates {
		if !live[k] {
			delete(p.rates, k)
		}
	}
	if len(rates) == 0 {
		d.notes["counters"] = "no device here has counters/ or hw_counters/ in sysfs"
	}
}
