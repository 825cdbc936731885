package ui

import "github.com/verbscope/verbscope/themes"

// traceField is the header's word on trace, which feeds the QP
// histories and the transition counts: nothing without trace, a warning
// while its programs load (transitions that two readings do not straddle
// are missed until then) or when it cannot run, the events it lost.
func (m *model) traceField() string {
	if m.c.res == nil || m.c.res.frame.Trace == nil {
		return ""
	}
	st := m.c.res.frame.Trace
	switch {
	case st.Off != "":
		return m.c.theme.Render(themes.SlotWarn, "trace off: counts not exact")
	case !st.Up:
		return m.c.theme.Render(themes.SlotWarn, "trace loading: counts not yet exact")
	case st.Lost > 0:
		return m.c.theme.Render(themes.SlotError, "trace: "+plural(int(st.Lost), "event")+" lost")
	}
	return m.c.theme.Render(themes.SlotDim, "traced")
}
