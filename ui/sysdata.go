package ui

import (
	"math"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

// sparkLen is how many readings a counter's sparkline shows.
const sparkLen = 24

// sysData is one sysfsmon reading prepared for the dev, port, gid, irq
// and counters views, off the UI goroutine. The rows are sysfsmon's own
// (the ones `verbscope devices`, `ports`… print); the dashboard adds
// only marks, sparklines and the per-CPU strip.
type sysData struct {
	u     sysfsmon.Update
	rows  map[string][]Row
	notes map[string]string // per view: why it is empty (rxe has no IRQs)
}

// sysPump keeps each counter's recent rates for the sparklines.
type sysPump struct {
	rates map[string][]float64
	dev   string // only this device, when set
}

func newSysPump(dev string) *sysPump { return &sysPump{rates: map[string][]float64{}, dev: dev} }

// skip tells a device the dashboard was not asked to show.
func (p *sysPump) skip(dev string) bool { return p.dev != "" && dev != p.dev }

// sysViews are the sysfs views: their filter kinds (view schemas) and
// columns (sysfsmon row keys, plus the dashboard's own: spark, cpus,
// flags).
var sysViews = []struct {
	name, kind string
	cols       []Column
}{
	{"dev", "devices", []Column{col("dev", "dev", 0, false), col("node_type", "type", 3, false), col("fw", "firmware", 2, false),
		col("hca", "HCA", 4, false), col("node_guid", "node GUID", 1, false), col("netdevs", "netdev", 0, false),
		col("pci", "PCI", 3, false), col("numa_node", "NUMA", 4, true), col("uverbs", "uverbs", 5, false), col("ports", "ports", 0, true)}},
	{"port", "ports", []Column{col("dev", "dev", 0, false), col("port", "port", 0, true), col("state", "state", 0, false),
		col("phys_state", "physical", 1, false), col("link", "link layer", 2, false), col("rate", "rate", 1, false),
		col("netdev_mtu", "MTU", 3, true), col("netdev", "netdev", 0, false), col("lid", "LID", 4, false),
		col("gids", "GIDs", 5, false), col("recommended_gid_index", "RoCEv2 GID", 2, true)}},
	{"gid", "gids", []Column{col("dev", "dev", 0, false), col("port", "port", 0, true), col("index", "index", 0, true),
		col("type", "type", 0, false), col("ip", "IP", 0, false), col("netdev", "netdev", 1, false), col("gid", "GID", 2, false)}},
	{"irq", "irqs", []Column{col("dev", "dev", 0, false), col("irq", "IRQ", 0, true), col("name", "name", 1, false),
		col("mode", "mode", 2, false), col("smp_affinity_list", "smp_affinity", 1, false),
		col("effective_affinity_list", "effective", 0, false), col("rate", "irq/s", 0, true),
		{Key: "cpus", Title: "per-CPU", Prio: 3}, col("flags", "flags", 0, false)}},
	{"counters", "counters", []Column{col("dev", "dev", 0, false), col("port", "port", 0, true), col("group", "group", 3, false),
		col("name", "counter", 0, false), col("value", "value", 1, true), col("rate", "rate/s", 0, true),
		{Key: "spark", Title: "recent", Prio: 2}}},
}

func sysColumns(name string) []Column {
	for _, v := range sysViews {
		if v.name == name {
			return v.cols
		}
	}
	return nil
}

func sysKind(name string) string {
	for _, v := range sysViews {
		if v.name == name {
			return v.kind
		}
	}
	return ""
}

// prepare builds the sys views of one reading.
func (p *sysPump) prepare(u sysfsmon.Update, ascii bool) *sysData {
	d := &sysData{u: u, rows: map[string][]Row{}, notes: map[string]string{}}
	add := func(name string, r view.Row, mark Mark) Row {
		cols := sysColumns(name)
		row := fromFields(cols, colIndex(cols), r)
		row.Mark = mark
		d.rows[name] = append(d.rows[name], row)
		return row
	}
	for i := range u.Devices {
		dev := &u.Devices[i]
		if p.skip(dev.Name) {
			continue
		}
		add("dev", dev.Row(), MarkNone)
		for j := range dev.Ports {
			pt := &dev.Ports[j]
			mark := MarkNone
			if pt.State != 4 { // IB_PORT_ACTIVE
				mark = MarkWarn
			}
			add("port", pt.Row(), mark)
			for _, g := range pt.GIDRows() {
				add("gid", g, MarkNone)
			}
		}
	}
	if len(u.Devices) == 0 {
		for _, v := range []string{"dev", "port", "gid"} {
			d.notes[v] = "no RDMA devices in /sys/class/infiniband"
		}
	}
	p.irqs(d, u, ascii)
	p.counters(d, u, ascii)
	return d
}

func (p *sysPump) irqs(d *sysData, u sysfsmon.Update, ascii bool) {
	if u.IRQs == nil {
		d.notes["irq"] = "no IRQ reading (see the alerts line)"
		return
	}
	cols := sysColumns("irq")
	index := colIndex(cols)
	var why []string
	for i := range u.IRQs.Devices {
		dv := &u.IRQs.Devices[i]
		if p.skip(dv.Device) {
			continue
		}
		if len(dv.IRQs) == 0 {
			why = append(why, dv.Device+": "+dv.NoIRQs)
			continue
		}
		allCPU0 := len(dv.IRQs) > 1
		for _, q := range dv.IRQs {
			if q.Effective != "0" {
				allCPU0 = false
			}
		}
		rates := map[int][]float64{}
		for _, r := range u.IRQRates {
			if r.Device == dv.Device {
				rates[r.IRQ] = r.PerCPU
			}
		}
		for j, r := range dv.IRQRows(u.IRQs.CPUs, u.IRQRates, u.IRQRates != nil) {
			row := fromFields(cols, index, r)
			row.Key = dv.Device + "/" + row.Key
			q := dv.IRQs[j]
			var flags []string
			if q.Mode == "intx" {
				flags, row.Mark = append(flags, "INTx"), MarkWarn
			}
			if allCPU0 {
				flags, row.Mark = append(flags, "all on CPU0"), MarkWarn
			}
			row.Cells[index["flags"]] = strings.Join(flags, ", ")
			row.Cells[index["cpus"]] = sparkline(rates[q.IRQ], ascii)
			row.Cells[index["dev"]] = dv.Device
			d.rows["irq"] = append(d.rows["irq"], row)
		}
	}
	if len(why) > 0 {
		d.notes["irq"] = strings.Join(why, "; ")
	}
}

func (p *sysPump) counters(d *sysData, u sysfsmon.Update, ascii bool) {
	if u.Counters == nil {
		d.notes["counters"] = "no counter reading (see the alerts line)"
		return
	}
	cols := sysColumns("counters")
	index := colIndex(cols)
	rates := u.CounterRates
	if rates == nil { // the first reading: values without rates
		for _, c := range u.Counters.Counters {
			rates = append(rates, sysfsmon.CounterRate{Counter: c})
		}
	}
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
			row.Mark = MarkError
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

var nan = math.NaN()

var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values scaled to their maximum.
func sparkline(vals []float64, ascii bool) string {
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	var b strings.Builder
	for _, v := range vals {
		i := 0
		if top > 0 {
			i = int(v / top * float64(len(sparkRunes)-1))
		}
		if ascii {
			b.WriteByte(" .:-=+*#"[i])
		} else {
			b.WriteRune(sparkRunes[i])
		}
	}
	return b.String()
}
