package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/internal/pace"
)

// lateFloor is the least a reading may take before the header calls it
// late, whatever the interval: at 250 ms a dump of 10,000 QPs on a busy
// host takes several intervals without hanging.
const lateFloor = 5 * time.Second

// lateEvery is how often the dashboard looks whether a reading is late:
// a reading that hangs sends nothing, so a tick must look.
const lateEvery = time.Second

// lateTickMsg is the tick of that look.
type lateTickMsg struct{}

// lateWatch follows one poller's readings: when the last arrived, since
// when the next is due, and whether it is late.
type lateWatch struct {
	what string // "netlink", "sysfs"
	// at is when the last reading arrived; due is when the wait for the
	// next began: at, or when watching began or resumed.
	at, due time.Time
	seen    bool
	closed  bool
	// late is set once the reading due is late; age is then how old
	// the last one is (or, before the first, how long the wait is).
	late bool
	age  time.Duration
}

// arrived notes a reading.
func (w *lateWatch) arrived(now time.Time) { w.at, w.due, w.seen, w.late = now, now, true, false }

// judge sets late from the time the reading has been due against limit.
func (w *lateWatch) judge(now time.Time, limit time.Duration) {
	w.late = !w.closed && now.Sub(w.due) > limit
	w.age = now.Sub(w.due)
	if w.seen {
		w.age = now.Sub(w.at)
	}
}

// alert is the header's word on a late reading, or "".
func (w *lateWatch) alert() string {
	if !w.late {
		return ""
	}
	age := w.age.Truncate(time.Second).String()
	if !w.seen {
		return w.what + " reading late: none after " + age
	}
	return w.what + " reading late: the last is " + age + " old"
}

// lateTick arms the next look, when there is a poller to look at.
func (m *model) lateTick() tea.Cmd {
	if m.c.src.Res == nil && m.c.src.Sys == nil {
		return nil
	}
	return tea.Tick(lateEvery, func(time.Time) tea.Msg { return lateTickMsg{} })
}

// judgeLate looks whether a poller's reading is late: none for
// pace.LateAfter intervals (at least lateFloor). While paused nothing
// is read, so nothing is late.
func (m *model) judgeLate() {
	now := m.c.now()
	limit := max(pace.LateAfter*m.interval, lateFloor)
	for _, p := range []struct {
		w  *lateWatch
		on bool
	}{{&m.resLate, m.c.src.Res != nil}, {&m.sysLate, m.c.src.Sys != nil}} {
		p.w.late = false
		if p.on && !m.paused {
			p.w.judge(now, limit)
		}
	}
}

// resumed starts both waits again: the readings begin again at once.
func (m *model) resumed() {
	now := m.c.now()
	m.resLate.due, m.sysLate.due = now, now
}
