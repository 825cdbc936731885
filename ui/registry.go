package ui

import "strings"

// registry lists every view, in the order of the tab row. The `:` jump,
// the tabs, `?`, --view and ViewNames all read it: a new view is a line
// here and a file of its own.
var registry = []viewSpec{
	objectSpec("qp", "QPs", "qps"),
	objectSpec("cq", "CQs"),
	objectSpec("mr", "MRs"),
	objectSpec("pd", "PDs"),
	objectSpec("ctx", "contexts"),
	objectSpec("srq", "SRQs"),
	objectSpec("cm_id", "CM IDs", "cmid", "cm-id"),
	sysfsSpec("dev", "devices", "devices", "device"),
	sysfsSpec("port", "ports", "ports", "link"),
	sysfsSpec("gid", "GIDs", "gids"),
	sysfsSpec("irq", "IRQs", "irqs"),
	sysfsSpec("counters", "counters", "counter", "stat"),
	eventsSpec,
	doctorSpec,
	fleetSpec,
}

// lookup returns the registry's view named name or one of its aliases.
func lookup(name string) (viewSpec, bool) {
	name = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), ":")
	for _, s := range registry {
		if s.name == name {
			return s, true
		}
		for _, a := range s.aliases {
			if a == name {
				return s, true
			}
		}
	}
	return viewSpec{}, false
}

// ViewNames lists the views `:` jumps to, in the tab row's order.
func ViewNames() []string {
	out := make([]string, len(registry))
	for i, s := range registry {
		out[i] = s.name
	}
	return out
}

// IsView reports whether name names a view or one of its aliases.
func IsView(name string) bool {
	_, ok := lookup(name)
	return ok
}
