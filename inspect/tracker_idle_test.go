package inspect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/verbscope/verbscope/rdma"
)

// TestTrackerSameObjectsAsWhole: readings that hand over the last one's
// objects (the fast path, updateSame) give the Updates and histories
// that looking at every object gives: a tracker fed the shared objects
// and one fed deep copies of them (never the same, so looked at whole)
// agree reading by reading, through a stuck QP, traced modifies that
// changed nothing a reading shows, a failed modify and a move to ERR.
func TestTrackerSameObjectsAsWhole(t *testing.T) {
	base := recorded(t, "rping", at(0))
	sq36 := qpIndex(t, base, 36).SQPSN
	shared, whole := NewTracker(TrackerConfig{StallPolls: 3}), NewTracker(TrackerConfig{StallPolls: 3})
	shared.traceUp, whole.traceUp = true, true
	var last *Snapshot
	// read feeds both trackers reading i: change, when set, makes new
	// objects from the last ones; else the shared tracker gets the last
	// reading's very objects.
	read := func(i int, change func(s *Snapshot)) {
		t.Helper()
		s := clone(base, at(i))
		if last != nil {
			s = clone(last, at(i))
			if change == nil {
				s.Reuse(rdma.KindQP, last) // the same objects: every kind's slice is last's
			}
		}
		if change != nil {
			change(s)
		}
		us := shared.Update(s)
		uw := whole.Update(clone(s, s.Time))
		if d := cmp.Diff(uw, us, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("reading %d: the shared objects' update differs from the whole look's (-whole +shared):\n%s", i, d)
		}
		if d := cmp.Diff(whole.entered, shared.entered, cmp.AllowUnexported(enteredState{})); d != "" {
			t.Errorf("reading %d: traced states waiting for a reading (-whole +shared):\n%s", i, d)
		}
		last = s
	}
	observe := func(m Modify) { shared.Observe(m); whole.Observe(m) }
	read(0, nil)
	read(1, func(s *Snapshot) {
		qpIndex(t, s, 36).SQPSN = (sq36 + 3) & psnMask
		q40 := *qpIndex(t, s, 37)
		q40.LQPN, q40.State = 40, rdma.QPStateInit
		s.QPs = append(s.QPs, q40)
	})
	for i := 2; i <= 5; i++ {
		if i == 3 {
			// A modify that set only a timeout, and one that failed.
			observe(Modify{Time: at(3).Add(-time.Second / 2), Dev: "rxe0", QPN: 36, From: rdma.QPStateRTS, To: rdma.QPStateRTS, FromKnown: true, Type: rdma.QPTypeRC, Port: 1,
				Mask: []string{"IB_QP_TIMEOUT"}, Attrs: []ModifyAttr{{Name: "timeout", Value: "14"}}})
			observe(Modify{Time: at(3).Add(-time.Second / 4), Dev: "rxe0", QPN: 37, From: rdma.QPStateRTS, To: rdma.QPStateRTR, HasState: true, FromKnown: true,
				Type: rdma.QPTypeRC, Port: 1, Mask: []string{"IB_QP_STATE"}, Ret: -22, Errno: "EINVAL"})
			// Back to RESET and to INIT again between two readings:
			// the next reading shows QP 40 as it was.
			observe(Modify{Time: at(3).Add(-time.Second / 8), Dev: "rxe0", QPN: 40, From: rdma.QPStateInit, To: rdma.QPStateReset, HasState: true, FromKnown: true,
				Type: rdma.QPTypeRC, Port: 1, Mask: []string{"IB_QP_STATE"}, Attrs: []ModifyAttr{{Name: "qp_state", Value: "RESET"}}})
			observe(Modify{Time: at(3).Add(-time.Second / 16), Dev: "rxe0", QPN: 40, From: rdma.QPStateReset, To: rdma.QPStateInit, HasState: true, FromKnown: true,
				Type: rdma.QPTypeRC, Port: 1, Mask: []string{"IB_QP_STATE", "IB_QP_PORT"}, Attrs: []ModifyAttr{{Name: "qp_state", Value: "INIT"}, {Name: "port_num", Value: "1"}}})
		}
		read(i, nil)
	}
	observe(Modify{Time: at(6).Add(-time.Second / 2), Dev: "rxe0", QPN: 37, From: rdma.QPStateRTS, To: rdma.QPStateErr, HasState: true, FromKnown: true,
		Type: rdma.QPTypeRC, Port: 1, Mask: []string{"IB_QP_STATE"}, Attrs: []ModifyAttr{{Name: "qp_state", Value: "ERR"}}})
	read(6, func(s *Snapshot) { qpIndex(t, s, 37).State = rdma.QPStateErr })
	for i := 7; i <= 9; i++ {
		read(i, nil)
	}
	if d := cmp.Diff(whole.Histories(), shared.Histories()); d != "" {
		t.Errorf("histories (-whole +shared):\n%s", d)
	}
	// The test means something only if it took the fast path and found
	// what it is about.
	if shared.last.snap != last {
		t.Errorf("the shared tracker did not keep the last reading")
	}
	if k := (Key{rdma.KindQP, "rxe0", 40}); len(shared.History(k)) != 3 {
		t.Errorf("QP 40's history %v: want INIT, RESET and INIT", shared.History(k))
	}
	if u := shared.Update(last); len(u.Stuck) != 1 || len(u.Failed) != 1 {
		t.Errorf("after the move to ERR: stuck %v, failed %v; want QP 36 stuck and QP 37 failed", u.Stuck, u.Failed)
	}
}

// TestTrackerSeed: a Tracker seeded with a reading reports on the next
// one what a Tracker that was updated with it does (but for growth,
// whose series a seeded Tracker starts at the next reading), and so
// does one that keeps no history (a replay's), which has none to give.
func TestTrackerSeed(t *testing.T) {
	for _, names := range [][2]string{{"rc-init", "rc-rts"}, {"idle", "rping"}, {"rping", "idle"}, {"rc-rts", "rc-rts"}} {
		prev, s := recorded(t, names[0], at(0)), recorded(t, names[1], at(1))
		updated, seeded, bare := NewTracker(TrackerConfig{}), NewTracker(TrackerConfig{}), NewTracker(TrackerConfig{NoHistory: true})
		updated.Update(prev)
		seeded.Seed(prev)
		bare.Seed(prev)
		want, got, gotBare := updated.Update(s), seeded.Update(s), bare.Update(s)
		if d := cmp.Diff(want, got, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(Update{}, "Growing")); d != "" {
			t.Errorf("%s then %s (-updated +seeded):\n%s", names[0], names[1], d)
		}
		if d := cmp.Diff(got, gotBare, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%s then %s, no history kept (-seeded +bare):\n%s", names[0], names[1], d)
		}
		if len(updated.Histories()) == 0 || len(bare.Histories()) != 0 {
			t.Errorf("%s then %s: %d histories kept, %d with NoHistory; want some, and none", names[0], names[1], len(updated.Histories()), len(bare.Histories()))
		}
		if len(want.Appeared)+len(want.Disappeared)+len(want.StateChanges) == 0 && names[0] != names[1] {
			t.Errorf("%s then %s: nothing reported, the case proves nothing", names[0], names[1])
		}
	}
}
