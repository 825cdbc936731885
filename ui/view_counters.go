package ui

import "github.com/verbscope/verbscope/sysfsmon"

// countersSpec is the ports' counters and hw_counters with rates: a sysfs
// view (view_sysfs.go) whose rows add each counter's sparkline of its
// recent rates.
var countersSpec = sysfsSpec("counters", "counters", "port and hardware counters with rates", "counters", []column{
	col("dev", "dev", 0, false), col("port", "port", 0, true), col("group", "group", 3, false),
	col("name", "counter", 0, false), col("value", "value", 1, true), col("rate", "rate", 0, true),
	{Key: "spark", Title: "recent", Prio: 2}},
	"counter", "stat")

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
