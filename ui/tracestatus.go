package ui

import (
	"time"

	"github.com/verbscope/verbscope/themes"
)

// readingField says how often the readings come and, without trace,
// that each is a whole dump of every object: the mode the watcher is in
// (with trace, traceField says the rest).
func (m *model) readingField() string {
	every := "every " + m.interval.String()
	if m.c.res == nil || m.c.res.frame.Trace == nil || !m.c.res.frame.Trace.Up || m.c.res.frame.Reconcile == 0 {
		return "dump " + every
	}
	return every
}

// traceField is the header's word on trace, which feeds the QP
// histories and the transition counts and, once up, the readings
// themselves: nothing without trace, a warning while its programs load
// (transitions that two readings do not straddle are missed until then)
// or when it cannot run, the events it lost, else how often the whole
// dump comes.
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
	if r := m.c.res.frame.Reconcile; r > 0 {
		// The readings are built from trace's events; the whole
		// dump that puts right what trace cannot see comes seldom.
		return m.c.theme.Render(themes.SlotDim, "traced · dump every "+r.Round(time.Second).String())
	}
	return m.c.theme.Render(themes.SlotDim, "traced")
}
