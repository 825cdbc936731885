package inspect

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// TestTransitionsCountedOnce: every state change is counted once,
// whichever of trace and the snapshots sees it first, and whatever of
// it trace missed. QP 17 (the pingpong server's, RC on port 1) is in
// INIT in the first snapshot; snapshots come every 10 s.
func TestTransitionsCountedOnce(t *testing.T) {
	init := recorded(t, "rc-init", at(10))
	mod := func(sec int, qpn uint32, from, to QPState) Modify {
		return Modify{Time: at(sec), Dev: "rxe0", QPN: qpn, From: from, FromKnown: true, To: to, HasState: true, Type: rdma.QPTypeRC, Port: 1}
	}
	const (
		rst, ini, rtr, rts, qerr = rdma.QPStateReset, rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS, rdma.QPStateErr
	)
	// step is what happens before one snapshot: the modifies trace
	// hands over, then a snapshot showing QP 17 in state; counted is
	// the RC port 1 counts after it, by state entered.
	type step struct {
		mods    []Modify
		state   QPState
		counted map[QPState]uint64
	}
	for _, tc := range []struct {
		name  string
		up    bool
		steps []step
	}{
		{"untraced: the snapshots count at once", false, []step{
			{state: rts, counted: map[QPState]uint64{rts: 1}},
			{state: rts, counted: map[QPState]uint64{rts: 1}},
		}},
		{"traced before the snapshot: each modify once, the snapshot none", true, []step{
			{mods: []Modify{mod(15, 17, ini, rtr), mod(16, 17, rtr, rts)}, state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
			{state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
		}},
		{"traced after the snapshot: the snapshot's change waits and is dropped", true, []step{
			{state: rts, counted: map[QPState]uint64{}},
			{mods: []Modify{mod(15, 17, ini, rtr), mod(16, 17, rtr, rts)}, state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
			{state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
		}},
		{"the kernel's ERR, no modify: counted one Update later", true, []step{
			{state: qerr, counted: map[QPState]uint64{}},
			{state: qerr, counted: map[QPState]uint64{qerr: 1}},
		}},
		{"a snapshot between two traced modifies", true, []step{
			{mods: []Modify{mod(15, 17, ini, rtr), mod(25, 17, rtr, rts)}, state: rtr, counted: map[QPState]uint64{rtr: 1, rts: 1}},
			{state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
			{state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
		}},
		{"trace lost the RTS: the snapshot counts it", true, []step{
			{mods: []Modify{mod(15, 17, ini, rtr)}, state: rts, counted: map[QPState]uint64{rtr: 1}},
			{state: rts, counted: map[QPState]uint64{rtr: 1, rts: 1}},
		}},
		{"reset and set up again between two snapshots", true, []step{
			{mods: []Modify{mod(15, 17, ini, rst), mod(16, 17, rst, ini), mod(17, 17, ini, ini)}, state: ini, counted: map[QPState]uint64{rst: 1, ini: 1}},
		}},
		{"QPs no snapshot shows (churn), and one whose state before nobody knew", true, []step{
			{mods: []Modify{mod(15, 500, rst, ini), mod(15, 500, ini, rtr), mod(15, 500, rtr, rts), mod(16, 501, rst, ini),
				{Time: at(17), Dev: "rxe0", QPN: 502, To: rts, HasState: true, Type: rdma.QPTypeRC, Port: 1}}, state: ini,
				counted: map[QPState]uint64{ini: 2, rtr: 1, rts: 1}},
		}},
		{"a failed modify and one without a state change nothing", true, []step{
			{mods: []Modify{{Time: at(15), Dev: "rxe0", QPN: 17, From: ini, FromKnown: true, To: rtr, HasState: true, Ret: -22},
				{Time: at(16), Dev: "rxe0", QPN: 17, From: ini, FromKnown: true}}, state: ini, counted: map[QPState]uint64{}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := NewTracker(TrackerConfig{})
			tr.Update(init)
			var q *ModifyQueue
			if tc.up {
				q = NewModifyQueue(0)
				q.SetStatus(TraceStatus{Up: true})
			}
			var last map[Transition]uint64
			for i, st := range tc.steps {
				for _, m := range st.mods {
					q.Put(m)
				}
				if q != nil {
					q.take(tr)
				}
				s := clone(init, at(20+10*i))
				qpIndex(t, s, 17).State = st.state
				u := tr.Update(s)
				got := map[QPState]uint64{}
				for k, n := range u.Transitions {
					if k.Dev != "rxe0" || k.Port != 1 || k.Type != rdma.QPTypeRC {
						t.Errorf("step %d: a count of %+v", i, k)
					}
					got[k.To] += n
				}
				if d := cmp.Diff(st.counted, got); d != "" {
					t.Errorf("step %d: counts (-want +got):\n%s", i, d)
				}
				var changes uint64
				for _, n := range st.counted {
					changes += n
				}
				for _, n := range last {
					changes -= n
				}
				if uint64(len(u.StateChanges)) != changes {
					t.Errorf("step %d: %d StateChanges, want the %d counted: %+v", i, len(u.StateChanges), changes, u.StateChanges)
				}
				last = u.Transitions
			}
		})
	}
}

// TestTransitionsForgetGoneDevices: the counts are whole in every
// Update, an Update's map is never written after, and a device the
// snapshot no longer shows takes its counts with it.
func TestTransitionsForgetGoneDevices(t *testing.T) {
	init := recorded(t, "rc-init", at(10))
	tr := NewTracker(TrackerConfig{})
	tr.Update(init)
	rts := clone(init, at(20))
	qpIndex(t, rts, 17).State = rdma.QPStateRTS
	u1 := tr.Update(rts)
	key := Transition{Dev: "rxe0", Port: 1, Type: rdma.QPTypeRC, To: rdma.QPStateRTS}
	if u1.Transitions[key] != 1 {
		t.Fatalf("after INIT→RTS: %v", u1.Transitions)
	}
	errd := clone(rts, at(30))
	qpIndex(t, errd, 17).State = rdma.QPStateErr
	u2 := tr.Update(errd)
	if u2.Transitions[key] != 1 || len(u2.Transitions) != 2 || len(u1.Transitions) != 1 {
		t.Errorf("after RTS→ERR: %v, the Update before %v; want both counts now and the RTS one before", u2.Transitions, u1.Transitions)
	}
	gone := clone(errd, at(40))
	gone.Devices, gone.QPs, gone.Summary = nil, nil, nil
	if u := tr.Update(gone); len(u.Transitions) != 0 || len(u2.Transitions) != 2 {
		t.Errorf("rxe0 gone: %v (the Update before: %v), want none now", u.Transitions, u2.Transitions)
	}
}

// TestTracedChangeTakesTheSnapshotsPort: a modify whose QP trace did not
// see set up (its port set before trace attached) comes with port 0; it
// is counted under the port the snapshots show, with the QP's other
// changes, not in a group of its own.
func TestTracedChangeTakesTheSnapshotsPort(t *testing.T) {
	init := recorded(t, "rc-init", at(10))
	tr := NewTracker(TrackerConfig{})
	tr.Update(init)
	tr.Observe(Modify{Time: at(11), Dev: "rxe0", QPN: 17, From: rdma.QPStateReset, To: rdma.QPStateErr, HasState: true, Type: rdma.QPTypeRC})
	errd := clone(init, at(12))
	qpIndex(t, errd, 17).State = rdma.QPStateErr
	u := tr.Update(errd)
	want := Transition{Dev: "rxe0", Port: 1, Type: rdma.QPTypeRC, To: rdma.QPStateErr}
	if u.Transitions[want] != 1 || len(u.Transitions) != 1 {
		t.Errorf("transitions %v, want one into ERR on port 1", u.Transitions)
	}
}
