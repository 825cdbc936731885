package ui

import "strings"

// registry lists every view, in the order of the tab row. The `:` jump,
// the tabs, `?`, --view and ViewNames all read it: a new view is a line
// here and a file of its own.
var registry = []viewSpec{
	overviewSpec,
	qpSpec, cqSpec, mrSpec, pdSpec, ctxSpec, srqSpec, cmidSpec,
	devSpec, portSpec, gidSpec, irqSpec, countersSpec,
	ownersSpec, eventsSpec, doctorSpec, fleetSpec,
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

// ViewInfo is a view as a help text names it.
type ViewInfo struct {
	Name    string
	Aliases []string
	About   string // what it shows, in a few words
}

// Views lists every view in the tab row's order.
func Views() []ViewInfo {
	out := make([]ViewInfo, len(registry))
	for i, s := range registry {
		out[i] = ViewInfo{Name: s.name, Aliases: s.aliases, About: s.about}
	}
	return out
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
