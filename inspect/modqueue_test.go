package inspect

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// TestModifyQueueNeverBlocks: 30,000 modifies of 10,000 QPs (a burst
// that set them all up) are put with nobody taking, as trace's reader
// does while the Watcher is in a long dump; every Put returns, and the
// one take hands every modify to the Tracker, each QP's in order.
func TestModifyQueueNeverBlocks(t *testing.T) {
	q := NewModifyQueue(0)
	const qps = 10000
	put := make(chan struct{})
	go func() {
		defer close(put)
		for _, to := range []QPState{rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS} {
			for n := range uint32(qps) {
				q.Put(Modify{Time: at(int(to)), Dev: "rxe0", QPN: n + 100, To: to, HasState: true})
			}
		}
	}()
	// Nobody takes until every Put returned: a queue that blocked its
	// writer would never close put (the test's timeout ends it).
	<-put
	tr := NewTracker(TrackerConfig{})
	q.take(tr)
	h := tr.Histories()
	if len(h) != qps {
		t.Fatalf("%d QPs have a history, want %d", len(h), qps)
	}
	for n := range uint32(qps) {
		k := Key{rdma.KindQP, "rxe0", n + 100}
		var got []QPState
		for _, e := range h[k] {
			got = append(got, e.State)
		}
		if d := cmp.Diff([]QPState{rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS}, got); d != "" {
			t.Fatalf("%v's history (-want +got):\n%s", k, d)
		}
	}
	q.take(tr) // empty now: nothing more
	if n := len(tr.History(Key{rdma.KindQP, "rxe0", 100})); n != 3 {
		t.Errorf("a second take added entries: %d", n)
	}
}

// TestModifyQueueCoalesces: a QP modified more often than its history
// keeps loses only its oldest modifies, the ones the history would have
// trimmed anyway; other QPs keep all of theirs.
func TestModifyQueueCoalesces(t *testing.T) {
	q := NewModifyQueue(4)
	for i := range 10 {
		q.Put(Modify{Time: at(i), Dev: "rxe0", QPN: 17, Ret: -i})
	}
	q.Put(Modify{Time: at(20), Dev: "rxe0", QPN: 18})
	tr := NewTracker(TrackerConfig{HistoryLen: 4})
	q.take(tr)
	var rets []int
	for _, e := range tr.History(Key{rdma.KindQP, "rxe0", 17}) {
		rets = append(rets, e.Modify.Ret)
	}
	if d := cmp.Diff([]int{-6, -7, -8, -9}, rets); d != "" {
		t.Errorf("QP 17 keeps (-want +got):\n%s", d)
	}
	if n := len(tr.History(Key{rdma.KindQP, "rxe0", 18})); n != 1 {
		t.Errorf("QP 18 has %d entries, want 1", n)
	}
}

// TestWatchTraceStatus: frames carry the queue's status as it was set,
// nil without a queue, and modifies put between two frames reach the
// history of the second.
func TestWatchTraceStatus(t *testing.T) {
	q := NewModifyQueue(0)
	w, clk := startWatch(t, replayConn(t, merged(t, "rc-init", "rc-init")), WatchOptions{Modifies: q})
	f1 := nextFrame(t, w)
	if f1.Trace == nil || f1.Trace.Up {
		t.Errorf("frame 1: trace status %+v, want loading (not up)", f1.Trace)
	}
	q.SetStatus(TraceStatus{Up: true, Lost: 3})
	rtr := Modify{Time: time.Now(), Dev: "rxe0", QPN: 17, From: rdma.QPStateInit, To: rdma.QPStateRTR, HasState: true}
	q.Put(rtr)
	clk.WaitArmed(t)
	clk.Fire()
	f2 := nextFrame(t, w)
	if d := cmp.Diff(&TraceStatus{Up: true, Lost: 3}, f2.Trace); d != "" {
		t.Errorf("frame 2: trace status (-want +got):\n%s", d)
	}
	h := f2.History[pingpongQP]
	if len(h) == 0 || h[len(h)-1].Modify == nil || h[len(h)-1].Modify.To != rdma.QPStateRTR {
		t.Errorf("frame 2: QP 17's history does not end with the traced RTR: %+v", h)
	}
	w2, _ := startWatch(t, replayConn(t, loadRecording(t, "idle")), WatchOptions{})
	if f := nextFrame(t, w2); f.Trace != nil {
		t.Errorf("a watch without a queue: trace status %+v", f.Trace)
	}
}

// TestWatchTraceWakes: a traced modify brings the next snapshot forward
// (the interval's pause never ends here: the fake clock is not fired),
// so a QP that lives less than an interval is still read; a second one
// within the interval does not (once per interval at most).
func TestWatchTraceWakes(t *testing.T) {
	q := NewModifyQueue(0)
	w, _ := startWatch(t, replayConn(t, merged(t, "idle", "rc-init")), WatchOptions{Interval: time.Hour, Modifies: q})
	f1 := nextFrame(t, w)
	if _, ok := f1.History[pingpongQP]; ok {
		t.Fatalf("frame 1 already holds QP 17")
	}
	q.Put(Modify{Time: time.Now(), Dev: "rxe0", QPN: 17, From: rdma.QPStateReset, To: rdma.QPStateInit, HasState: true})
	f2 := nextFrame(t, w)
	if f2.Seq != 2 || f2.Snapshot == nil {
		t.Fatalf("frame 2: seq %d err %v", f2.Seq, f2.Err)
	}
	if _, ok := f2.History[pingpongQP]; !ok {
		t.Errorf("frame 2, woken by the modify, does not hold QP 17")
	}
	q.Put(Modify{Time: time.Now(), Dev: "rxe0", QPN: 17, From: rdma.QPStateInit, To: rdma.QPStateRTR, HasState: true})
	select {
	case f := <-w.Frames():
		t.Errorf("frame %d came %v after a modify within the hour's interval; the first woke one already", f.Seq, 5*traceWakeGap)
	case <-time.After(5 * traceWakeGap):
	}
}

// TestQueueGoneEndsUnseenHistory: a QP created, moved and destroyed
// between two readings (its modifies and its destroy traced, no reading
// showing it) ends its history with the destroy; a QP a reading showed
// is ended by the reading that sees it gone, not by the trace; and a
// destroy older than the history's last event (the number taken again)
// ends nothing.
func TestQueueGoneEndsUnseenHistory(t *testing.T) {
	base := recorded(t, "idle", at(0))
	q, tr := NewModifyQueue(0), NewTracker(TrackerConfig{})
	q.take(tr)
	tr.Update(base)
	short, shown := Key{rdma.KindQP, "rxe0", 90}, Key{rdma.KindQP, "rxe0", 91}
	put := func(qpn uint32, ms int, from, to QPState) {
		q.Put(Modify{Time: at(0).Add(time.Duration(ms) * time.Millisecond), Dev: "rxe0", QPN: qpn, From: from, To: to, HasState: true, FromKnown: true,
			Type: rdma.QPTypeRC, Port: 1, Mask: []string{"IB_QP_STATE"}})
	}
	gone := func(qpn uint32, ms int) {
		q.Touch(Touch{Kind: rdma.KindQP, Dev: "rxe0", ID: qpn, Gone: true, Time: at(0).Add(time.Duration(ms) * time.Millisecond)})
	}
	put(90, 100, rdma.QPStateReset, rdma.QPStateInit)
	put(90, 200, rdma.QPStateInit, rdma.QPStateRTR)
	gone(90, 300)
	put(91, 100, rdma.QPStateReset, rdma.QPStateInit)
	q.take(tr)
	withShown := clone(base, at(1))
	q91 := withShown.QPs[0]
	q91.LQPN, q91.State, q91.Type, q91.Port = 91, rdma.QPStateInit, rdma.QPTypeRC, 1
	withShown.QPs = append(withShown.QPs, q91)
	tr.Update(withShown)
	h := tr.History(short)
	if len(h) != 3 || !h[2].Gone || h[2].State != rdma.QPStateRTR || !h[2].Time.Equal(at(0).Add(300*time.Millisecond)) {
		t.Errorf("QP 90, traced only: history %+v, want INIT, RTR and gone in RTR at its destroy", h)
	}
	gone(91, 1500) // destroyed after a reading showed it
	gone(90, 250)  // older than QP 90's end: ends nothing more
	q.take(tr)
	tr.Update(clone(base, at(2)))
	h = tr.History(shown)
	if n := len(h); n == 0 || !h[n-1].Gone || !h[n-1].Time.Equal(at(2)) {
		t.Errorf("QP 91, shown by a reading: history %+v, want it gone at the reading that saw it so", h)
	}
	if n := len(tr.History(short)); n != 3 {
		t.Errorf("QP 90's history has %d events after an older destroy, want 3", n)
	}
}

// churn puts n QPs' worth of churn on q with nobody taking, as trace's
// reader does while readings stall on a busy host: each QP numbered from
// first is modified once and destroyed.
func churn(q *ModifyQueue, first, n int) {
	for i := range n {
		qpn := uint32(first + i)
		q.Put(Modify{Time: at(i), Dev: "rxe0", QPN: qpn, To: rdma.QPStateInit, HasState: true})
		q.Touch(Touch{Kind: rdma.KindQP, Dev: "rxe0", ID: qpn, Gone: true, Time: at(i)})
	}
}

// smallQueue is a queue with small bounds, so churn fills it fast.
func smallQueue() *ModifyQueue {
	q := NewModifyQueue(0)
	q.limits = queueLimits{modifies: 400, touched: 400, gone: 300}
	return q
}

// TestModifyQueueBoundedWhileStalled: churn with no reading to take the
// queue leaves it no larger than its bounds, and every event it had no
// room for is counted with the reader's losses; a take empties it and
// it keeps again.
func TestModifyQueueBoundedWhileStalled(t *testing.T) {
	if maxQueued < 3*30000 || maxTouched < 3*40000 {
		t.Errorf("the bounds (%d modifies, %d touched) keep less than 3x to spare over a burst of 10,000 QPs", maxQueued, maxTouched)
	}
	q := smallQueue()
	q.SetStatus(TraceStatus{Up: true, Lost: 5})
	const extra = 1000
	churn(q, 0, q.limits.modifies+extra)
	q.mu.Lock()
	held, touched, gone := q.held, len(q.touch.objs), len(q.gone)
	n := 0
	for _, ms := range q.byQP {
		n += len(ms)
	}
	q.mu.Unlock()
	if held != n || n > q.limits.modifies || touched > q.limits.touched || gone > q.limits.gone {
		t.Errorf("stalled queue holds %d modifies (counted %d), %d touched, %d destroys; bounds %+v", n, held, touched, gone, q.limits)
	}
	// The first 400 QPs fit but for their destroys past 300; each of
	// the rest is lost whole (its modify, its touch, its destroy: one
	// event each).
	want := uint64(5 + (400 - 300) + 2*extra)
	if got := q.Status().Lost; got != want {
		t.Errorf("Status().Lost = %d, want %d (the reader's 5 and the queue's drops)", got, want)
	}
	tr := NewTracker(TrackerConfig{})
	q.take(tr)
	q.takeTouched()
	if h := tr.Histories(); len(h) != 400 {
		t.Errorf("the take handed %d QPs' histories to the Tracker, want the 400 kept", len(h))
	}
	churn(q, 2000, 10)
	if got := q.Status().Lost; got != want {
		t.Errorf("after a take, 10 more QPs raised Lost to %d, want it kept at %d", got, want)
	}
}

// TestReconcileDumpsAfterQueueDrop: once the queue has dropped anything,
// trace no longer vouches for the readings it builds: the next is a
// whole dump, after which trace vouches again.
func TestReconcileDumpsAfterQueueDrop(t *testing.T) {
	q := smallQueue()
	q.SetStatus(TraceStatus{Up: true, Objects: true})
	r := newReconciler(replayConn(t, loadRecording(t, "idle")), WatchOptions{Modifies: q, Reconcile: time.Hour})
	read := func() {
		t.Helper()
		st := q.Status()
		if _, fromTrace, err := r.read(context.Background(), &st); err != nil || fromTrace {
			t.Fatalf("read: fromTrace %v, err %v; want a whole dump", fromTrace, err)
		}
	}
	vouches := func() bool { st := q.Status(); return r.vouches(&st, time.Now()) }
	read()
	if !vouches() {
		t.Fatal("after a whole dump with trace up and nothing lost, trace does not vouch for the next reading")
	}
	churn(q, 0, q.limits.touched+1)
	if vouches() {
		t.Fatal("after the queue dropped events, trace still vouches: the next reading would be built from trace")
	}
	read()
	if !vouches() {
		t.Error("after the whole dump that followed the drop, trace does not vouch again")
	}
}
