package ui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// registry lists every word ':' takes: the views, in the order of the
// tab row, then the commands. The `:` jump and its completion, the tabs,
// `?`, --view and ViewNames all read it: a new view is a line here and
// a file of its own.
var registry = []viewSpec{
	overviewSpec,
	qpSpec, cqSpec, mrSpec, pdSpec, ctxSpec, srqSpec, cmidSpec,
	devSpec, portSpec, gidSpec, irqSpec, countersSpec,
	ownersSpec, eventsSpec, doctorSpec, fleetSpec,
	learnSpec, quitSpec,
}

// The commands: words ':' runs rather than shows.
var (
	// learnSpec is `:learn`, the course in the shell pane (lessonpane.go).
	learnSpec = viewSpec{name: "learn", about: "the course in the shell pane", run: (*model).learn}
	// quitSpec is `:q`, as in k9s.
	quitSpec = viewSpec{name: "quit", aliases: []string{"q"}, about: "quit the dashboard", run: (*model).quit}
)

// isView tells a view (a page with its tab) from a command.
func (s viewSpec) isView() bool { return s.run == nil }

// views are the registry's views, in the tab row's order.
func views() []viewSpec {
	var out []viewSpec
	for _, s := range registry {
		if s.isView() {
			out = append(out, s)
		}
	}
	return out
}

// run is what ':' does with a registry's word: run the command, or show
// the view.
func (m *model) run(s viewSpec) tea.Cmd {
	m.mode = modeNormal
	if !s.isView() {
		return s.run(m)
	}
	p := m.find(s.name)
	m.cur = p
	m.c.shown = p.view
	m.apply(p)
	m.c.note("", "")
	return m.route(p, shownMsg{})
}

// lookup returns the registry's view or command named name or one of
// its aliases.
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
	var out []ViewInfo
	for _, s := range views() {
		out = append(out, ViewInfo{Name: s.name, Aliases: s.aliases, About: s.about})
	}
	return out
}

// ViewNames lists the views `:` jumps to, in the tab row's order.
func ViewNames() []string {
	var out []string
	for _, s := range views() {
		out = append(out, s.name)
	}
	return out
}

// words are every name ':' takes, the views' then the commands', for its
// completion.
func words() []string {
	out := make([]string, len(registry))
	for i, s := range registry {
		out[i] = s.name
	}
	return out
}

// IsView reports whether name names a view or one of its aliases.
func IsView(name string) bool {
	s, ok := lookup(name)
	return ok && s.isView()
}
