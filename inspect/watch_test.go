package inspect

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/verbscope/verbscope/internal/pace/pacetest"
	"github.com/verbscope/verbscope/rdma"
)

const waitLimit = pacetest.WaitLimit

func nextFrame(t *testing.T, w *Watcher) Frame {
	t.Helper()
	select {
	case f, ok := <-w.Frames():
		if !ok {
			t.Fatal("Frames closed, want a frame")
		}
		return f
	case <-time.After(waitLimit):
		t.Fatal("no frame arrived")
		return Frame{}
	}
}

// waitClosed drains Frames until it is closed and returns what it held.
func waitClosed(t *testing.T, w *Watcher) []Frame {
	t.Helper()
	var got []Frame
	for {
		select {
		case f, ok := <-w.Frames():
			if !ok {
				return got
			}
			got = append(got, f)
		case <-time.After(waitLimit):
			t.Fatal("Frames was never closed")
			return got
		}
	}
}

// merged joins recordings into one fake kernel that answers each request
// with the recordings' replies in turn, and the last one from then on.
func merged(t *testing.T, names ...string) *Recording {
	out := &Recording{Comm: map[uint32]string{}, TGID: map[uint32]uint32{}}
	for _, n := range names {
		r := loadRecording(t, n)
		out.Exchanges = append(out.Exchanges, r.Exchanges...)
		for k, v := range r.Comm {
			out.Comm[k] = v
		}
		for k, v := range r.TGID {
			out.TGID[k] = v
		}
	}
	return out
}

// countingFunc counts the device dumps, which start every snapshot.
func countingFunc(fn nltest.Func, n *atomic.Int64) nltest.Func {
	return func(reqs []netlink.Message) ([]netlink.Message, error) {
		if len(reqs) > 0 && uint16(reqs[0].Header.Type) == msgType(CmdGet) && reqs[0].Header.Flags&netlink.Dump != 0 {
			n.Add(1)
		}
		return fn(reqs)
	}
}

func startWatch(t *testing.T, c *Conn, o WatchOptions) (*Watcher, *pacetest.Clock) {
	t.Helper()
	clk := pacetest.NewClock()
	o.clock = clk
	w := Watch(context.Background(), c, o)
	t.Cleanup(func() { w.Close() })
	return w, clk
}

var pingpongQP = Key{rdma.KindQP, "rxe0", 17}

// TestWatchFrames: the pingpong server's QP appears in the second frame
// (a Refresh, not the interval, takes it), with its history, and goes in
// the third; the second frame's history is not touched by the third.
func TestWatchFrames(t *testing.T) {
	c := replayConn(t, merged(t, "idle", "rc-init", "idle"))
	w, clk := startWatch(t, c, WatchOptions{Interval: 5 * time.Second})

	f1 := nextFrame(t, w)
	if f1.Seq != 1 || f1.Err != nil || len(f1.Snapshot.QPs) != 1 || len(f1.Update.Appeared) != 3 {
		t.Fatalf("frame 1: seq %d err %v, %d QPs, appeared %+v", f1.Seq, f1.Err, len(f1.Snapshot.QPs), f1.Update.Appeared)
	}
	if h := f1.History[Key{rdma.KindQP, "rxe0", 1}]; len(h) != 1 || h[0].State != rdma.QPStateRTS {
		t.Errorf("frame 1: GSI QP history %+v", h)
	}
	if d := clk.WaitArmed(t); d != 5*time.Second {
		t.Errorf("pause %v, want the 5s interval", d)
	}

	w.Refresh()
	f2 := nextFrame(t, w)
	if f2.Seq != 2 || f2.Err != nil {
		t.Fatalf("frame 2: seq %d err %v", f2.Seq, f2.Err)
	}
	appeared := false
	for _, ch := range f2.Update.Appeared {
		if ch.Key == pingpongQP {
			appeared = true
			if ch.PID != 169 || ch.TGID != 169 || ch.Comm != "ibv_rc_pingpong" || ch.Owner != OwnerLive {
				t.Errorf("frame 2: appeared %+v", ch)
			}
		}
	}
	if !appeared {
		t.Errorf("frame 2: QP 17 did not appear: %+v", f2.Update.Appeared)
	}
	want2 := []StateEvent{{Time: f2.Snapshot.Time, State: rdma.QPStateInit}}
	if diff := cmp.Diff(want2, f2.History[pingpongQP]); diff != "" {
		t.Errorf("frame 2: QP 17 history (-want +got):\n%s", diff)
	}

	clk.WaitArmed(t)
	clk.Fire()
	f3 := nextFrame(t, w)
	if f3.Seq != 3 || f3.Err != nil {
		t.Fatalf("frame 3: seq %d err %v", f3.Seq, f3.Err)
	}
	gone := false
	for _, ch := range f3.Update.Disappeared {
		gone = gone || ch.Key == pingpongQP
	}
	if !gone {
		t.Errorf("frame 3: QP 17 did not disappear: %+v", f3.Update.Disappeared)
	}
	want3 := append(want2, StateEvent{Time: f3.Snapshot.Time, State: rdma.QPStateInit, Gone: true})
	if diff := cmp.Diff(want3, f3.History[pingpongQP]); diff != "" {
		t.Errorf("frame 3: QP 17 history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want2, f2.History[pingpongQP]); diff != "" {
		t.Errorf("frame 2's history changed after delivery (-want +got):\n%s", diff)
	}
	if len(f2.Snapshot.QPs) != 2 {
		t.Errorf("frame 2's snapshot changed after delivery: %d QPs", len(f2.Snapshot.QPs))
	}
}

// TestWatchLatestWins: a reader that takes nothing for three snapshots
// finds only the third.
func TestWatchLatestWins(t *testing.T) {
	w, clk := startWatch(t, replayConn(t, loadRecording(t, "idle")), WatchOptions{})
	for range 2 {
		if d := clk.WaitArmed(t); d != defaultWatchInterval {
			t.Errorf("pause %v, want the default %v", d, defaultWatchInterval)
		}
		clk.Fire()
	}
	clk.WaitArmed(t) // the third frame was delivered
	f := nextFrame(t, w)
	if f.Seq != 3 || f.Err != nil {
		t.Errorf("got frame %d (err %v), want the latest, 3", f.Seq, f.Err)
	}
	select {
	case f := <-w.Frames():
		t.Errorf("a second frame was queued: %d", f.Seq)
	default:
	}
}

// TestWatchPause: no snapshot while paused, a Refresh then is dropped,
// and resuming takes one at once.
func TestWatchPause(t *testing.T) {
	rec := loadRecording(t, "idle")
	var snaps atomic.Int64
	c := replayOn(t, rec, nltest.Dial(countingFunc(replayFunc(t, rec), &snaps)))
	w, clk := startWatch(t, c, WatchOptions{})
	nextFrame(t, w)
	clk.WaitArmed(t)
	w.SetPaused(true)
	clk.WaitStopped(t) // the watcher saw the pause
	w.Refresh()
	clk.Fire() // no pause is under way: nothing fires
	w.SetPaused(false)
	f := nextFrame(t, w)
	clk.WaitArmed(t)
	if f.Seq != 2 || snaps.Load() != 2 {
		t.Errorf("after resuming: frame %d, %d snapshots; want 2 and 2 (none while paused)", f.Seq, snaps.Load())
	}
}

// TestWatchSetInterval: a new interval restarts the pause under way.
func TestWatchSetInterval(t *testing.T) {
	w, clk := startWatch(t, replayConn(t, loadRecording(t, "idle")), WatchOptions{Interval: 5 * time.Second})
	nextFrame(t, w)
	clk.WaitArmed(t)
	w.SetInterval(250 * time.Millisecond)
	clk.WaitStopped(t)
	if d := clk.WaitArmed(t); d != 250*time.Millisecond {
		t.Errorf("pause %v after SetInterval(250ms)", d)
	}
	w.SetInterval(0)
	clk.WaitStopped(t)
	if d := clk.WaitArmed(t); d != defaultWatchInterval {
		t.Errorf("pause %v after SetInterval(0), want the default", d)
	}
}

// TestWatchErrFrame: a failed snapshot is a frame with Err, and watching
// goes on.
func TestWatchErrFrame(t *testing.T) {
	fail := true
	var mu sync.Mutex
	rec := loadRecording(t, "idle")
	replay := replayFunc(t, rec)
	fn := func(reqs []netlink.Message) ([]netlink.Message, error) {
		mu.Lock()
		defer mu.Unlock()
		out, err := replay(reqs)
		if fail && isQPDump(reqs[0]) && err == nil {
			// A reply cut short: the first QP entry loses its end.
			fail = false
			out[0].Data = out[0].Data[:len(out[0].Data)-3]
		}
		return out, err
	}
	w, clk := startWatch(t, replayOn(t, rec, nltest.Dial(fn)), WatchOptions{})
	f := nextFrame(t, w)
	if f.Err == nil || f.Snapshot != nil || !errors.Is(f.Err, ErrMalformed) {
		t.Fatalf("frame 1: err %v, snapshot %v; want ErrMalformed and no snapshot", f.Err, f.Snapshot != nil)
	}
	clk.WaitArmed(t)
	clk.Fire()
	if f := nextFrame(t, w); f.Seq != 2 || f.Err != nil || f.Snapshot == nil {
		t.Errorf("frame 2: seq %d err %v", f.Seq, f.Err)
	}
}

// TestWatchCloseDuringDump: Close interrupts a QP dump that the kernel
// never finishes; Frames is closed without a frame.
func TestWatchCloseDuringDump(t *testing.T) {
	rec := loadRecording(t, "idle")
	sock := newStallSocket(replayFunc(t, rec), isQPDump)
	c := replayOn(t, rec, sock.conn())
	w, _ := startWatch(t, c, WatchOptions{})
	waitBlocked(t, sock)
	start := time.Now()
	closed := make(chan struct{})
	go func() { w.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(waitLimit):
		t.Fatal("Close did not return while a dump was blocked")
	}
	t.Logf("Close returned after %v", time.Since(start))
	if got := waitClosed(t, w); len(got) != 0 {
		t.Errorf("frames after Close: %+v", got)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestWatchDeadline: a QP dump that never ends is cut at the snapshot's
// deadline, with no Close or cancel: its frame fails, saying so and
// wrapping context.DeadlineExceeded, and the next snapshot, after the
// interval and on a new socket, succeeds.
func TestWatchDeadline(t *testing.T) {
	rec := loadRecording(t, "idle")
	sock := newStallSocket(replayFunc(t, rec), isQPDump)
	c := replayOn(t, rec, sock.conn())
	c.sock.redial = func() (*netlink.Conn, error) { return nltest.Dial(replayFunc(t, rec)), nil }
	// A second: a replayed snapshot takes a few ms, under -race on a
	// loaded machine tens of ms, so only the stalled dump reaches it.
	w, clk := startWatch(t, c, WatchOptions{Deadline: time.Second})
	f := nextFrame(t, w)
	if f.Seq != 1 || f.Snapshot != nil || !errors.Is(f.Err, context.DeadlineExceeded) || !strings.Contains(fmt.Sprint(f.Err), "did not end within 1s") {
		t.Fatalf("frame 1: seq %d, snapshot %v, err %v; want the deadline's failure", f.Seq, f.Snapshot != nil, f.Err)
	}
	select {
	case <-sock.blocked: // the cut came in the QP dump
	default:
		t.Error("the snapshot was cut before the stalled QP dump")
	}
	if d := clk.WaitArmed(t); d != defaultWatchInterval {
		t.Errorf("pause %v after the cut, want the interval", d)
	}
	clk.Fire()
	if f := nextFrame(t, w); f.Seq != 2 || f.Err != nil || f.Snapshot == nil || len(f.Snapshot.QPs) != 1 {
		t.Fatalf("frame 2: seq %d, err %v; want the snapshot on a new socket", f.Seq, f.Err)
	}
}

// TestWatchContextEnds: cancelling Watch's context closes Frames.
func TestWatchContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	clk := pacetest.NewClock()
	w := Watch(ctx, replayConn(t, loadRecording(t, "idle")), WatchOptions{clock: clk})
	defer w.Close()
	clk.WaitArmed(t)
	cancel()
	if got := waitClosed(t, w); len(got) > 1 {
		t.Errorf("%d frames after one snapshot", len(got))
	}
}

// TestConnCloseDuringDump: Conn.Close returns while another goroutine's
// dump is blocked, and that Snapshot fails with ErrClosed.
func TestConnCloseDuringDump(t *testing.T) {
	rec := loadRecording(t, "idle")
	sock := newStallSocket(replayFunc(t, rec), isQPDump)
	c := replayOn(t, rec, sock.conn())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Snapshot(context.Background(), SnapshotOptions{})
		errc <- err
	}()
	waitBlocked(t, sock)
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Snapshot after Close: %v, want ErrClosed", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Snapshot did not end after Close")
	}
}

// TestSnapshotCancelled: cancelling the context wakes a blocked dump;
// the Conn then opens a new socket for the next request (a Conn that
// cannot says so).
func TestSnapshotCancelled(t *testing.T) {
	rec := loadRecording(t, "idle")
	sock := newStallSocket(replayFunc(t, rec), isQPDump)
	c := replayOn(t, rec, sock.conn())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Snapshot(ctx, SnapshotOptions{})
		errc <- err
	}()
	waitBlocked(t, sock)
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Snapshot after cancel: %v, want context.Canceled", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("Snapshot did not end after cancel")
	}
	if _, err := c.Snapshot(context.Background(), SnapshotOptions{}); !errors.Is(err, ErrClosed) {
		t.Errorf("next Snapshot on a Conn that cannot redial: %v, want ErrClosed", err)
	}

	c = replayOn(t, rec, newStallSocket(replayFunc(t, rec), isQPDump).conn())
	c.sock.redial = func() (*netlink.Conn, error) { return nltest.Dial(replayFunc(t, rec)), nil }
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Snapshot(ctx, SnapshotOptions{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Snapshot past its deadline: %v, want context.DeadlineExceeded", err)
	}
	s, err := c.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil || len(s.QPs) != 1 {
		t.Fatalf("Snapshot on a new socket: %v", err)
	}
}
