package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// sysfsSpec is a view of sysfsmon's readings: dev, port, gid, irq and
// counters. Their rows are the ones `verbscope devices`, `ports`… print,
// built by the sysfs row builder (sysdata.go) off the UI goroutine.
// schema names its rows' fields for the filter (a view schema: devices,
// ports…).
func sysfsSpec(name, title, about, schema string, cols []column, aliases ...string) viewSpec {
	return viewSpec{name: name, title: title, about: about, aliases: aliases, cols: cols, sysfs: true, make: func(c *common) component {
		return &sysfsView{c: c, name: name, schema: schema, cols: cols}
	}}
}

type sysfsView struct {
	c            *common
	name, schema string
	cols         []column
}

func (v *sysfsView) columns() []column   { return v.cols }
func (v *sysfsView) filter() matcher     { return rowMatcher(v.schema) }
func (v *sysfsView) heading() string     { return "" }
func (v *sysfsView) keys() []key.Binding { return nil }

func (v *sysfsView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	if m, ok := msg.(sysMsg); ok {
		return rowSet{rows: m.d.rows[v.name]}, true, nil
	}
	return rowSet{}, false, nil
}

func (v *sysfsView) empty() string {
	if v.c.sys == nil {
		return "reading sysfs…"
	}
	return v.c.sys.notes[v.name]
}

func (v *sysfsView) detail(r tableRow) []string {
	out := cellLines(v.c.theme, v.columns(), r)
	switch v.name {
	case "irq":
		out = append(out, irqDetail(v.c.theme, v.c.sys, r)...)
	case "counters":
		out = append(out, counterDetail(v.c.theme, r.Fields)...)
	}
	return out
}

// explainsOnHelp tells that ? on this view explains the selected row (the
// counters view) rather than opening the keys' help.
func (v *sysfsView) explainsOnHelp() bool { return v.name == "counters" }

// sysfsColumns are the sysfs views' columns, from the registry:
// sysfsmon row keys, plus the dashboard's own (spark, cpus, flags).
var sysfsColumns = func() map[string][]column {
	out := map[string][]column{}
	for _, s := range registry {
		if s.sysfs {
			out[s.name] = s.cols
		}
	}
	return out
}()
