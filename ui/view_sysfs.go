package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// sysfsSpec is a view of sysfsmon's readings: dev, port, gid, irq and
// counters. Their rows are the ones `verbscope devices`, `ports`… print,
// built by the sysfs row builder (sysdata.go) off the UI goroutine.
func sysfsSpec(name, title, about string, aliases ...string) viewSpec {
	return viewSpec{name: name, title: title, about: about, aliases: aliases, make: func(c *common) component {
		return &sysfsView{c: c, name: name}
	}}
}

type sysfsView struct {
	c    *common
	name string
}

func (v *sysfsView) columns() []column   { return sysfsColumns[v.name] }
func (v *sysfsView) filter() matcher     { return rowMatcher(sysfsKinds[v.name]) }
func (v *sysfsView) heading() string     { return "" }
func (v *sysfsView) keys() []key.Binding { return nil }

func (v *sysfsView) take(msg tea.Msg) ([]tableRow, bool, tea.Cmd) {
	if m, ok := msg.(sysMsg); ok {
		return m.d.rows[v.name], true, nil
	}
	return nil, false, nil
}

func (v *sysfsView) empty() string {
	if v.c.sys == nil {
		return "reading sysfs…"
	}
	return v.c.sys.notes[v.name]
}

func (v *sysfsView) detail(r tableRow) []string {
	out := cellLines(v.c.theme, v.columns(), r)
	if v.name == "irq" {
		out = append(out, irqDetail(v.c.theme, v.c.sys, r)...)
	}
	return out
}

// sysfsKinds are the sysfs views' filter kinds (view schemas).
var sysfsKinds = map[string]string{"dev": "devices", "port": "ports", "gid": "gids", "irq": "irqs", "counters": "counters"}

// sysfsColumns are the sysfs views' columns: sysfsmon row keys, plus
// the dashboard's own (spark, cpus, flags).
var sysfsColumns = map[string][]column{
	"dev": {col("dev", "dev", 0, false), col("node_type", "type", 3, false), col("fw", "firmware", 2, false),
		col("hca", "HCA", 4, false), col("node_guid", "node GUID", 1, false), col("netdevs", "netdev", 0, false),
		col("pci", "PCI", 3, false), col("numa_node", "NUMA", 4, true), col("uverbs", "uverbs", 5, false), col("ports", "ports", 0, true)},
	"port": {col("dev", "dev", 0, false), col("port", "port", 0, true), col("state", "state", 0, false),
		col("phys_state", "physical", 1, false), col("link", "link layer", 2, false), col("rate", "rate", 1, false),
		col("netdev_mtu", "MTU", 3, true), col("netdev", "netdev", 0, false), col("lid", "LID", 4, false),
		col("gids", "GIDs", 5, false), col("recommended_gid_index", "RoCEv2 GID", 2, true)},
	"gid": {col("dev", "dev", 0, false), col("port", "port", 0, true), col("index", "index", 0, true),
		col("type", "type", 0, false), col("ip", "IP", 0, false), col("netdev", "netdev", 1, false), col("gid", "GID", 2, false)},
	"irq": {col("dev", "dev", 0, false), col("irq", "IRQ", 0, true), col("name", "name", 1, false),
		col("mode", "mode", 2, false), col("smp_affinity_list", "smp_affinity", 1, false),
		col("effective_affinity_list", "effective", 0, false), col("rate", "irq/s", 0, true),
		{Key: "cpus", Title: "per-CPU", Prio: 3}, col("flags", "flags", 0, false)},
	"counters": {col("dev", "dev", 0, false), col("port", "port", 0, true), col("group", "group", 3, false),
		col("name", "counter", 0, false), col("value", "value", 1, true), col("rate", "rate/s", 0, true),
		{Key: "spark", Title: "recent", Prio: 2}},
}
