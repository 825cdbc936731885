package inspect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// TestTrackerObserve: the pingpong server's QP is seen in INIT, then the
// trace reports a failed RTR and the RTR and RTS that follow; the next
// snapshot, in RTS, adds no entry of its own, and the history keeps each
// modify's attributes.
func TestTrackerObserve(t *testing.T) {
	init := recorded(t, "rc-init", at(1))
	tr := NewTracker(TrackerConfig{})
	tr.Update(init)
	key := Key{rdma.KindQP, "rxe0", 17}
	mod := func(sec int, to QPState, ret int, attrs ...ModifyAttr) Modify {
		m := Modify{Time: at(sec), Dev: "rxe0", QPN: 17, PID: 169, Comm: "ibv_rc_pingpong", From: rdma.QPStateInit, To: to, HasState: true, Ret: ret, Attrs: attrs}
		if ret != 0 {
			m.Errno, m.Check = "EINVAL", "the address vector has no GRH"
		}
		return m
	}
	failed := mod(2, rdma.QPStateRTR, -22, ModifyAttr{Name: "dest_qp_num", Value: "18"})
	rtr := mod(3, rdma.QPStateRTR, 0, ModifyAttr{Name: "dest_qp_num", Value: "18"})
	rts := mod(3, rdma.QPStateRTS, 0, ModifyAttr{Name: "timeout", Value: "14"}, ModifyAttr{Name: "retry_cnt", Value: "7"})
	rts.From = rdma.QPStateRTR
	for _, m := range []Modify{failed, rtr, rts} {
		tr.Observe(m)
	}
	s := clone(init, at(4))
	q := qpIndex(t, s, 17)
	q.State = rdma.QPStateRTS
	u := tr.Update(s)
	// The changes are the two traced ones, not the snapshot's INIT→RTS
	// again.
	if len(u.StateChanges) != 2 || u.StateChanges[0].To != rdma.QPStateRTR || u.StateChanges[1].To != rdma.QPStateRTS || !u.StateChanges[1].Traced {
		t.Errorf("state changes: %+v", u.StateChanges)
	}
	want := []StateEvent{
		{Time: at(1), State: rdma.QPStateInit},
		{Time: at(2), State: rdma.QPStateInit, Modify: &failed},
		{Time: at(3), State: rdma.QPStateRTR, Modify: &rtr},
		{Time: at(3), State: rdma.QPStateRTS, Modify: &rts},
	}
	if d := cmp.Diff(want, tr.History(key)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	// A state the trace did not report (ERR, set by the kernel) is still
	// recorded from the snapshot.
	s = clone(s, at(5))
	qpIndex(t, s, 17).State = rdma.QPStateErr
	tr.Update(s)
	h := tr.Histories()[key] // as a Frame delivers it: shared, not copied
	if h[len(h)-1].State != rdma.QPStateErr || h[len(h)-1].Modify != nil {
		t.Errorf("last entry after ERR: %+v", h[len(h)-1])
	}
	// The modify that set ERR, come late (trace a moment behind the
	// dump that saw ERR), takes the snapshot's entry's place: one entry
	// into ERR, with the attributes, not two.
	toErr := mod(5, rdma.QPStateErr, 0, ModifyAttr{Name: "qp_state", Value: "ERR"})
	toErr.From, toErr.FromKnown = rdma.QPStateRTS, true
	tr.Observe(toErr)
	got := tr.History(key)
	want = append(want, StateEvent{Time: at(5), State: rdma.QPStateErr, Modify: &toErr})
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("history after the late modify into ERR (-want +got):\n%s", d)
	}
	if h[len(h)-1].Modify != nil {
		t.Errorf("the history delivered before the late modify was written: %+v", h[len(h)-1])
	}
	// Another modify into ERR (the QP already there) is one more entry.
	again := toErr
	again.From, again.Time = rdma.QPStateErr, at(6)
	tr.Observe(again)
	if n := len(tr.History(key)); n != len(want)+1 {
		t.Errorf("%d entries after a second modify into ERR, want %d", n, len(want)+1)
	}
}

// TestTrackerObserveAfterFirstSight: the verbs shell creates a QP and
// moves it to INIT and on to ERR between two readings; the reading that
// first shows the QP sees ERR, and trace hands over the two modifies
// after it. The history is the two modifies in order, one entry into
// ERR (the modify's, in the reading's place), not the reading's ERR
// first and the modifies after it.
func TestTrackerObserveAfterFirstSight(t *testing.T) {
	tr := NewTracker(TrackerConfig{})
	tr.Update(recorded(t, "idle", at(1)))
	s := recorded(t, "rc-init", at(3))
	qpIndex(t, s, 17).State = rdma.QPStateErr
	tr.Update(s)
	key := Key{rdma.KindQP, "rxe0", 17}
	mod := func(ms int, from, to QPState, hasState bool) Modify {
		return Modify{Time: at(2).Add(time.Duration(ms) * time.Millisecond), Dev: "rxe0", QPN: 17, PID: 900, Comm: "verbscope",
			From: from, FromKnown: true, To: to, HasState: hasState}
	}
	toInit := mod(10, rdma.QPStateReset, rdma.QPStateInit, true)
	noState := mod(11, rdma.QPStateInit, rdma.QPStateInit, false) // a modify of the timeout alone
	toErr := mod(12, rdma.QPStateInit, rdma.QPStateErr, true)
	for _, m := range []Modify{toInit, noState, toErr} {
		tr.Observe(m)
	}
	want := []StateEvent{
		{Time: toInit.Time, State: rdma.QPStateInit, Modify: &toInit},
		{Time: noState.Time, State: rdma.QPStateInit, Modify: &noState},
		{Time: toErr.Time, State: rdma.QPStateErr, Modify: &toErr},
	}
	if d := cmp.Diff(want, tr.History(key)); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
	// A modify after the reading follows it, as always.
	later := mod(2000, rdma.QPStateErr, rdma.QPStateReset, true)
	tr.Observe(later)
	if h := tr.History(key); h[len(h)-1].Modify == nil || h[len(h)-1].Modify.To != rdma.QPStateReset {
		t.Errorf("a modify after the reading is not last: %+v", h[len(h)-1])
	}
}

// TestTrackerObserveUnseen: modifies of QPs that no snapshot shows
// (created and destroyed between two, as under churn) keep no more
// histories than GoneRetention once two Updates missed them; a QP whose
// modifies come before the snapshot that first shows it keeps them.
func TestTrackerObserveUnseen(t *testing.T) {
	init := recorded(t, "rc-init", at(1))
	tr := NewTracker(TrackerConfig{GoneRetention: 10})
	tr.Update(recorded(t, "idle", at(1))) // no QP 17 yet
	for n := range uint32(500) {
		tr.Observe(Modify{Time: at(2), Dev: "rxe0", QPN: 1000 + n, To: rdma.QPStateInit, HasState: true})
	}
	// The pingpong server's QP 17 was created while the dump ran: its
	// modify comes first, the snapshot that shows it next.
	rtr := Modify{Time: at(2), Dev: "rxe0", QPN: 17, From: rdma.QPStateInit, To: rdma.QPStateRTR, HasState: true}
	tr.Observe(rtr)
	tr.Update(clone(init, at(3)))
	if n := len(tr.Histories()); n < 500 {
		t.Errorf("after one Update, %d histories: the unseen QPs' went too soon", n)
	}
	tr.Update(clone(init, at(4)))
	live := len(init.QPs)
	if n := len(tr.Histories()); n > live+10 {
		t.Errorf("after two Updates, %d histories; want at most the %d live QPs' and 10 retained", n, live)
	}
	h := tr.History(Key{rdma.KindQP, "rxe0", 17})
	found := false
	for _, e := range h {
		found = found || (e.Modify != nil && e.Modify.To == rdma.QPStateRTR)
	}
	if !found {
		t.Errorf("QP 17 lost its traced RTR: %+v", h)
	}
}

// TestModifyView: the front ends' words name the state before only when
// trace knew it, and the target only for a modify with IB_QP_STATE.
func TestModifyView(t *testing.T) {
	base := Modify{PID: 812, Comm: "pp", From: rdma.QPStateInit, To: rdma.QPStateRTR, Mask: []string{"IB_QP_STATE"},
		Attrs: []ModifyAttr{{Name: "qp_state", Value: "RTR"}}, Ret: -22, Errno: "EINVAL", Check: "no GRH"}
	for _, tc := range []struct {
		name                string
		hasState, fromKnown bool
		from, to            string
	}{
		{"known", true, true, "INIT", "RTR"},
		{"from unknown", true, false, "", "RTR"},
		{"no state", false, true, "INIT", ""},
	} {
		m := base
		m.HasState, m.FromKnown = tc.hasState, tc.fromKnown
		got := m.View()
		want := view.Modify{PID: 812, Comm: "pp", From: tc.from, To: tc.to, Mask: base.Mask, Attrs: base.Attrs,
			Ret: -22, Errno: "EINVAL", Check: "no GRH"}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, d)
		}
	}
}
