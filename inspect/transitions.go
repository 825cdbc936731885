package inspect

import (
	"time"
)

// Transition is one group of the state changes a Tracker counts: the
// QPs of one device port and type that entered one state (the labels of
// the exporter's verbscope_qp_transitions_total).
type Transition struct {
	Dev  string
	Port uint32
	Type QPType
	To   QPState
}

// How a Tracker counts state changes, each once. A traced modify that
// changed a QP's state is counted when it is taken (Observe): trace sees
// every one, also of a QP created and destroyed between two snapshots.
// A change two snapshots saw is counted only when no traced modify
// explains it: one the kernel made itself (a QP moved to ERR by a
// transport error), or one whose event trace lost. The modify behind a
// change can reach the Tracker after the snapshot that shows it (trace's
// reader looks about once an interval), so while trace is up a change a
// snapshot saw waits one Update for it (held).
//
// entered keeps, per QP, the states traced modifies entered that no
// snapshot has shown yet: a snapshot that shows a QP in a state takes
// the entries up to the newest into that state (the modify that
// explains what it saw) and those older than itself (it shows their
// effect, whatever it was).

// enteredState is a state a traced modify of a QP entered, and when.
type enteredState struct {
	to QPState
	at time.Time
}

// heldChange is a change a snapshot saw, waiting for the modify that
// explains it; end is when that snapshot ended.
type heldChange struct {
	c   StateChange
	end time.Time
}

// clockSlack allows for the difference between trace's clock (the
// kernel's monotonic time, turned into wall time once) and the
// snapshots' (time.Now).
const clockSlack = time.Second

// observeChange notes a traced modify's state change: counted at the
// next Update, and kept to explain what the snapshots see. A modify
// whose state before is unknown (to trace and the Tracker alike) is
// neither: the snapshots count what it changed.
func (t *Tracker) observeChange(k Key, m *Modify) {
	if m.Ret != 0 || !m.HasState {
		return
	}
	from, known := m.From, m.FromKnown
	if !known {
		if es := t.entered[k]; len(es) > 0 {
			from, known = es[len(es)-1].to, true
		} else if tr := t.objs[k]; tr != nil {
			from, known = tr.state, true
		}
	}
	if !known || from == m.To {
		return
	}
	// trace knows a QP's port from the modifies it saw: one whose port
	// was set before trace attached (the exporter and the workload
	// started together) comes with port 0, and would be counted in a
	// group of its own, its series first scraped at 1 (an increase()
	// that never rises). The snapshots know the port.
	port := m.Port
	if tr := t.objs[k]; port == 0 && tr != nil {
		port = tr.port
	}
	t.pending = append(t.pending, StateChange{Key: k, From: from, To: m.To, Time: m.Time, Port: port, Type: m.Type, Traced: true})
	es := append(t.entered[k], enteredState{m.To, m.Time})
	if n := t.cfg.HistoryLen; len(es) > n {
		es = es[len(es)-n:]
	}
	t.entered[k] = es
}

// judgeHeld counts the changes the last snapshot saw that no traced
// modify taken since explains.
func (t *Tracker) judgeHeld(u *Update) {
	for _, h := range t.held {
		if !t.take(h.c.Key, h.c.To, h.end.Add(clockSlack), time.Time{}) {
			t.count(u, h.c)
		}
	}
	t.held = t.held[:0]
}

// sawState takes k's traced entries that a snapshot showing k in state
// s (started at start, ended at end) explains, and reports whether one
// did; changed says the snapshot saw a change, counted now, held (trace
// up) or dropped (explained).
func (t *Tracker) sawState(u *Update, c StateChange, changed bool, start, end time.Time) {
	explained := t.take(c.Key, c.To, end.Add(clockSlack), start.Add(-clockSlack))
	switch {
	case !changed || explained:
	case t.traceUp:
		t.held = append(t.held, heldChange{c, end})
	default:
		t.count(u, c)
	}
}

// take drops k's entries up to the newest into state s no later than
// by, and those before stale; it reports whether there was one into s.
func (t *Tracker) take(k Key, s QPState, by, stale time.Time) bool {
	es := t.entered[k]
	cut := 0
	for i, e := range es {
		if e.to == s && !e.at.After(by) {
			cut = i + 1
		}
	}
	found := cut > 0
	for cut < len(es) && es[cut].at.Before(stale) {
		cut++
	}
	if cut == len(es) {
		delete(t.entered, k)
	} else if cut > 0 {
		t.entered[k] = es[cut:]
	}
	return found
}

// count reports a change in u and counts it.
func (t *Tracker) count(u *Update, c StateChange) {
	u.StateChanges = append(u.StateChanges, c)
	t.transitions[Transition{Dev: c.Key.Dev, Port: c.Port, Type: c.Type, To: c.To}]++
}

// countTraced reports the traced changes taken since the last Update.
func (t *Tracker) countTraced(u *Update) {
	for _, c := range t.pending {
		t.count(u, c)
	}
	t.pending = t.pending[:0]
}

// forgetTransitions drops the counts of devices s does not show (rdma
// link delete, a driver unloaded): a device that comes back counts from
// 0, and one added and removed a hundred times leaves nothing. A
// snapshot that failed in part may lack a device still there: it
// forgets nothing.
func (t *Tracker) forgetTransitions(s *Snapshot) {
	if len(s.Warnings) > 0 {
		return
	}
	shows := s.Shows()
	for tr := range t.transitions {
		if !shows(tr.Dev) {
			delete(t.transitions, tr)
		}
	}
}
