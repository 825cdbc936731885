package inspect

import (
	"context"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/verbscope/verbscope/rdma"
)

// TestDumpMarksEveryKind: a whole dump gives every kind a generation,
// never 0 and never one another reading has; one built by hand has
// none, and is the same as nothing, itself included.
func TestDumpMarksEveryKind(t *testing.T) {
	c := replayConn(t, loadRecording(t, "rc-rts"))
	a, err := c.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for _, s := range []*Snapshot{a, b} {
		for _, k := range rdma.ResourceKinds() {
			g := s.Generation(k)
			if g == 0 || seen[g] {
				t.Errorf("a dump's %s: generation %d, want a new one", k, g)
			}
			seen[g] = true
		}
	}
	if g := a.Generation(rdma.KindAH); g != 0 {
		t.Errorf("a kind nldev does not dump has generation %d, want 0", g)
	}
	byHand := &Snapshot{QPs: a.QPs}
	if byHand.SameObjects(byHand) || byHand.SameObjects(a) || (*Snapshot)(nil).SameObjects(nil) {
		t.Error("an unmarked reading is the same as one: its readers would skip it")
	}
}

// TestKeepEqualCarriesGenerations: a whole dump that reads a kind again
// equal keeps the last reading's generation for it; a kind with one
// object changed keeps its new one.
func TestKeepEqualCarriesGenerations(t *testing.T) {
	c := replayConn(t, loadRecording(t, "rc-rts"))
	read := func() *Snapshot {
		s, err := c.Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, changed := read(), read()
	changed.QPs[len(changed.QPs)-1].SQPSN++
	own := changed.Generation(rdma.KindQP)
	changed.keepEqual(first)
	for _, k := range rdma.ResourceKinds() {
		kept := changed.Generation(k) == first.Generation(k)
		if want := k != rdma.KindQP; kept != want {
			t.Errorf("%s: generation kept %v, want %v", k, kept, want)
		}
	}
	if changed.Generation(rdma.KindQP) != own {
		t.Errorf("the changed QPs' generation is %d, want their own %d", changed.Generation(rdma.KindQP), own)
	}
}

// TestRefreshMarksWhatChanged: a reading built from trace keeps the
// last reading's generation of every kind it did not read again, of
// every kind it read again equal (the CM_IDs, dumped each reading) and
// of QPs read again unchanged; QPs that changed get a new one.
func TestRefreshMarksWhatChanged(t *testing.T) {
	s := mixedSnapshot(t)
	gets := 0
	qps, changed, err := refreshQPs(s.QPs, touched{}, s.Devices, kernelAt(s.QPs, &gets))
	if err != nil || changed || gets == 0 {
		t.Fatalf("the active QPs read again unchanged: changed %v, %d gets, err %v; want unchanged", changed, gets, err)
	}
	now := append([]QP(nil), s.QPs...)
	if !activeQP(now[0].State) {
		t.Fatalf("the first QP is in %v: the test needs one a reading reads again", now[0].State)
	}
	now[0].SQPSN++
	if _, changed, err = refreshQPs(qps, touched{}, s.Devices, kernelAt(now, &gets)); err != nil || !changed {
		t.Fatalf("a QP whose PSN moved: changed %v, err %v; want changed", changed, err)
	}

	psn := uint32(5)
	r := newReconciler(NewConn(nltest.Dial(rtsKernel(t, &psn))), WatchOptions{Modifies: NewModifyQueue(0), Reconcile: time.Hour})
	st := TraceStatus{Up: true, Objects: true}
	last, _, err := r.read(context.Background(), &st)
	if err != nil {
		t.Fatal(err)
	}
	for _, psnMoved := range []bool{false, true} {
		if psnMoved {
			psn++
		}
		s, fromTrace, err := r.read(context.Background(), &st)
		if err != nil || !fromTrace {
			t.Fatalf("fromTrace %v, err %v; want a reading built from trace", fromTrace, err)
		}
		for _, k := range rdma.ResourceKinds() {
			if kept := s.Generation(k) == last.Generation(k); kept == (psnMoved && k == rdma.KindQP) {
				t.Errorf("PSN moved %v: the %s generation kept: %v", psnMoved, k, kept)
			}
		}
		last = s
	}
}

// rtsKernel is a kernel with one device and one QP, in RTS, whose send
// PSN is *psn: a reading built from trace reads it again by a get. It
// knows of no other object.
func rtsKernel(t *testing.T, psn *uint32) nltest.Func {
	others := fakeKernel(t, map[Command][][]byte{CmdGet: {idleDevice(t)}})
	return func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) == 0 || Command(uint16(reqs[0].Header.Type)&0x3ff) != CmdResQPGet {
			return others(reqs)
		}
		entry := cat(attr(AttrPortIndex, u32b(1)), attr(AttrResLQPN, u32b(17)), attr(AttrResSQPSN, u32b(*psn)),
			attr(AttrResType, []byte{2}), attr(AttrResState, []byte{3}), attr(AttrResPID, u32b(1)))
		reply := qpMsg(entry)
		if reqs[0].Header.Flags&netlink.Dump == 0 {
			// A get answers with the entry's attributes after the
			// device's, not in a table (res_get_common_doit).
			reply = cat(attr(AttrDevIndex, u32b(0)), attr(AttrDevName, []byte("rxe0\x00")), entry)
		}
		return fakeKernel(t, map[Command][][]byte{CmdResQPGet: {reply}})(reqs)
	}
}

// TestMarkChangedAndReuse: MarkChanged gives only the kinds named a new
// generation; Reuse hands over a kind's objects with theirs.
func TestMarkChangedAndReuse(t *testing.T) {
	var a Snapshot
	a.QPs = []QP{{LQPN: 17}}
	a.MarkChanged(rdma.ResourceKinds()...)
	b := a
	b.MarkChanged(rdma.KindCQ, rdma.KindAH)
	for _, k := range rdma.ResourceKinds() {
		if kept := b.Generation(k) == a.Generation(k); kept != (k != rdma.KindCQ) {
			t.Errorf("after MarkChanged(cq): %s kept its generation: %v", k, kept)
		}
	}
	var c Snapshot
	c.Reuse(rdma.KindQP, &a)
	if c.Generation(rdma.KindQP) != a.Generation(rdma.KindQP) || len(c.QPs) != 1 || c.Generation(rdma.KindCQ) != 0 {
		t.Errorf("Reuse(qp): QPs %v with generation %d (want a's %d), CQs' %d (want 0)", c.QPs, c.Generation(rdma.KindQP), a.Generation(rdma.KindQP), c.Generation(rdma.KindCQ))
	}
}

// TestTrackerFollowsGenerations: a reading that reuses the last one's
// very array of QPs, edited, with a new generation, is looked at whole:
// the Tracker goes by the generation, not by where the objects lie.
func TestTrackerFollowsGenerations(t *testing.T) {
	s := recorded(t, "rc-init", at(0))
	tr := NewTracker(TrackerConfig{})
	tr.Update(s)
	again := *s
	again.Time = at(1)
	tr.Update(&again) // the same objects: the fast path
	edited := again
	edited.Time = at(2)
	q := qpIndex(t, &edited, 17)
	if q.State != rdma.QPStateInit {
		t.Fatalf("the recording's QP 17 is in %v, the test needs INIT", q.State)
	}
	q.State = rdma.QPStateErr // in the very array the last readings hold
	edited.MarkChanged(rdma.KindQP)
	u := tr.Update(&edited)
	if len(u.StateChanges) != 1 || u.StateChanges[0].To != rdma.QPStateErr || len(u.Failed) != 1 {
		t.Errorf("QP 17 moved to ERR under a new generation: state changes %+v, failed %+v; want the move and the failure", u.StateChanges, u.Failed)
	}
}
