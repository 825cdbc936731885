package inspect

import (
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// Modify is one modify of a QP by any process, as the kernel saw it
// (ib_modify_qp_with_udata, drivers/infiniband/core/verbs.c): what
// verbscope trace reads with eBPF and RDMA netlink never carries, the
// attributes and the mask each transition set, and the modifies that
// failed.
type Modify struct {
	Time time.Time
	Dev  string
	QPN  uint32
	PID  int
	Comm string
	// From is the QP's state before, To the target (ib_qp_attr.qp_state);
	// HasState is false for a modify without IB_QP_STATE. FromKnown is
	// false when trace did not know the state before (a QP that changed
	// state before trace started): From is then RESET, a guess.
	From, To  QPState
	HasState  bool
	FromKnown bool
	// Type is the QP's type (ib_qp.qp_type); Port its port after the
	// modify as trace knows it (IB_QP_PORT of this modify or an earlier
	// one, the create's for a special QP; 0 before any), what a
	// snapshot's RDMA_NLDEV_ATTR_PORT_INDEX says.
	Type QPType
	Port uint32
	// Mask are the IB_QP_* names of the mask (include/rdma/ib_verbs.h
	// enum ib_qp_attr_mask); Attrs the values they set, by struct
	// ib_qp_attr's member names, as text ("timeout" "14").
	Mask  []string
	Attrs []ModifyAttr
	// AttrsJSON are the same attributes as one JSON object, as
	// verbscope trace -j prints them ("attrs": numbers as numbers, the
	// AV as an "ah_attr" object); for APIs that pass them on.
	AttrsJSON []byte
	// Ret is 0 or -errno; Errno names it (EINVAL). Check is what
	// rdma.Check says about a failed modify (the decisive finding).
	Ret   int
	Errno string
	Check string
}

// ModifyAttr is one attribute a modify set (view.ModifyAttr): struct
// ib_qp_attr's member name and its value as verbscope trace prints it.
type ModifyAttr = view.ModifyAttr

// Observe adds a traced modify to its QP's history: a successful one
// with the state it set (the next snapshot that shows the same state adds
// no second entry), a failed one with the state the QP stayed in. A
// successful one that changed the state is the next Update's
// StateChange, counted once (transitions.go).
func (t *Tracker) Observe(m Modify) {
	k := Key{Kind: rdma.KindQP, Dev: m.Dev, ID: m.QPN}
	e := StateEvent{Time: m.Time, State: m.From, Modify: &m}
	if tr := t.objs[k]; tr != nil {
		e.State, e.SQPSN, e.RQPSN = tr.state, tr.sqpsn, tr.rqpsn
	} else if _, ok := t.unseen[k]; !ok {
		t.unseen[k] = t.gen
	}
	if m.Ret == 0 && m.HasState {
		e.State = m.To
	}
	h := t.history[k]
	switch {
	case explainsLast(h, &m, t.took):
		// Copied, not written in place: a delivered history is never
		// written.
		t.setHistory(k, append(h[:len(h)-1:len(h)-1], e))
	case precedesLast(h, &m):
		// The reading that made the last entry came after this modify
		// and shows its effect: the modify goes before that entry, in
		// the state the QP had then, so the history stays in time order
		// and its last entry stays what the reading saw.
		n := len(h)
		if m.Ret != 0 || !m.HasState {
			e.State = m.From
			if n > 1 {
				e.State = h[n-2].State
			}
		}
		nh := make([]StateEvent, 0, n+1)
		nh = append(append(append(nh, h[:n-1]...), e), h[n-1])
		if over := len(nh) - t.cfg.HistoryLen; over > 0 {
			nh = nh[over:]
		}
		t.setHistory(k, nh)
	default:
		t.record(k, e)
	}
	t.observeChange(k, &m)
}

// precedesLast reports whether modify m came before the reading that
// made the last entry of history h: a QP created and moved between two
// readings (the verbs shell's `open; pd; cq; qp; next; modify err` in
// a few milliseconds) is first seen in its final state, and trace's
// reader, a moment behind the dump, hands over the modifies that got it
// there afterwards. Those that end in the state seen then take the
// entry's place (explainsLast); the ones before go before it.
func precedesLast(h []StateEvent, m *Modify) bool {
	if len(h) == 0 {
		return false
	}
	last := h[len(h)-1]
	return last.Modify == nil && !last.Gone && m.Time.Before(last.Time)
}

// explainsLast reports whether a successful modify that changed the
// state is the change the last entry of history h shows: a snapshot saw
// the new state before the modify reached the Tracker (trace's reader a
// moment behind a dump), so the modify takes that entry's place rather
// than following it as a second entry into the same state. trace
// delivers a QP's modifies in order, so any change between the two
// would have come first and left another entry last; and the modify
// came no later than the dump that saw its state ended (took), give or
// take the two clocks' difference.
func explainsLast(h []StateEvent, m *Modify, took time.Duration) bool {
	if m.Ret != 0 || !m.HasState || m.From == m.To || len(h) == 0 {
		return false
	}
	n := len(h)
	last := h[n-1]
	return last.Modify == nil && !last.Gone && last.State == m.To && (n == 1 || h[n-2].State != m.To) &&
		!m.Time.After(last.Time.Add(took+clockSlack))
}

// traced reports whether k's last history entry is a successful traced
// modify to state s: the snapshot that sees s then records nothing new.
// ObserveGone ends the history of a QP that trace saw destroyed at at
// (ib_destroy_qp_user, drivers/infiniband/core/verbs.c) when no reading
// showed it: created, moved and destroyed between two readings, its
// traced modifies are all that is known of it, and the history says it
// is gone instead of leaving it in its last state. A QP a reading
// showed ends with the reading that sees it gone (Update), and a
// history whose last event is later than at belongs to a QP that took
// the number after.
func (t *Tracker) ObserveGone(k Key, at time.Time) {
	if _, live := t.objs[k]; live {
		return
	}
	if _, traced := t.unseen[k]; !traced {
		return
	}
	h := t.history[k]
	if len(h) == 0 || h[len(h)-1].Gone || h[len(h)-1].Time.After(at) {
		return
	}
	last := h[len(h)-1]
	t.record(k, StateEvent{Time: at, State: last.State, Gone: true, SQPSN: last.SQPSN, RQPSN: last.RQPSN})
}

func (t *Tracker) traced(k Key, s QPState) bool {
	h := t.history[k]
	if len(h) == 0 {
		return false
	}
	last := h[len(h)-1]
	return last.Modify != nil && last.Modify.Ret == 0 && last.State == s
}

// View is the modify in the words the front ends print it with
// (view.Modify): the state before only when trace knew it, the target
// only for a modify with IB_QP_STATE.
func (m *Modify) View() view.Modify {
	v := view.Modify{PID: m.PID, Comm: m.Comm, Mask: m.Mask, Attrs: m.Attrs, AttrsJSON: m.AttrsJSON,
		Ret: m.Ret, Errno: m.Errno, Check: m.Check}
	if m.FromKnown {
		v.From = m.From.String()
	}
	if m.HasState {
		v.To = m.To.String()
	}
	return v
}
