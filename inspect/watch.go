package inspect

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/verbscope/verbscope/internal/pace"
)

// DefaultWatchInterval is the pause between two snapshots of a Watcher
// when WatchOptions.Interval is zero: `rdma resource show` in a loop, as
// watch(1) runs it, but without a process per look.
const DefaultWatchInterval = time.Second

// defaultSnapshotDeadline is how long one snapshot of a Watcher may take
// when WatchOptions.Deadline is zero: ten times the slowest full
// snapshot seen in the lab (10,000 QPs, about 3 s under emulation on a
// loaded host), so only a dump that hangs reaches it.
const defaultSnapshotDeadline = 30 * time.Second

// traceWakeGap is the least pause before a snapshot that a traced modify
// brought forward (WatchOptions.Modifies): a QP that lives less than an
// interval (ibv_rc_pingpong's, a job's failed connection attempt) is
// still seen. The pause is also at least as long as the last snapshot
// took, and modifies bring a snapshot forward once per interval at
// most: under churn (a job setting up thousands of QPs, QPs made and
// destroyed all the time) the watcher reads twice an interval, never
// back to back.
const traceWakeGap = 100 * time.Millisecond

// defaultReconcileInterval is how often a Watcher whose readings trace
// drives dumps every object anyway (WatchOptions.Reconcile): what trace
// cannot see (a kernel QP created and left in RESET, events lost) is
// right again within it, while the readings between cost what changed.
const defaultReconcileInterval = 30 * time.Second

// WatchOptions tunes Watch; the zero value works.
type WatchOptions struct {
	// Interval is the pause from the end of one snapshot to the start
	// of the next (default 1 s). Measured from the end,
	// a slow dump (10,000 QPs in an emulator) never runs back to back.
	Interval time.Duration
	// Deadline bounds each snapshot (default 30 s): a
	// netlink dump that never ends is cut at it, its frame fails, and the
	// next snapshot comes after the interval, on a new socket (Dial's
	// Conn opens one after a request was cut short).
	Deadline time.Duration
	// Snapshot selects what each snapshot reads.
	Snapshot SnapshotOptions
	// Tracker tunes the Tracker that follows the snapshots.
	Tracker TrackerConfig
	// Modifies, when set, are traced modifies (verbscope trace's eBPF
	// events) for the Tracker's histories: the queue is emptied into the
	// Tracker before each snapshot is tracked, and each Frame carries
	// its status (Frame.Trace). A modify also brings the next snapshot
	// forward (traceWakeGap), so the objects of short-lived QPs are read
	// while they live. One Watcher per queue.
	Modifies *ModifyQueue
	// Reconcile, with Modifies, builds the readings from trace: once
	// trace is up, a whole dump is taken only every Reconcile (default
	// 30 s; negative: every reading dumps, as
	// without trace), and each reading between reads only what trace
	// touched since the last, the QPs whose PSNs the kernel moves, and
	// the parts that cost a request whatever the number of objects
	// (devices, ports, counters): an idle host with 10,000 QPs costs
	// what one with 10 does. A reading falls back to a whole dump when
	// trace lost events, stopped, or a change needs it (a new QP still
	// without a port, a device added).
	Reconcile time.Duration

	// clock is the time source of the pauses (tests use a fake).
	clock pace.Clock
}

// Frame is one delivery of a Watcher: a snapshot, what changed since the
// previous one, and every tracked QP's history. Receivers on other
// goroutines may read it freely: nothing in a Frame is written after it
// is sent.
type Frame struct {
	// Seq numbers the snapshots from 1, failed ones included. A gap
	// means the receiver missed frames (latest wins): Snapshot and
	// History are whole, but the missed frames' Update is lost.
	Seq uint64
	// Snapshot is never mutated after delivery.
	Snapshot *Snapshot
	// Update is the Tracker's report on Snapshot.
	Update Update
	// History is every tracked QP's state history, live and recently
	// gone (Tracker.Histories); never mutated after delivery.
	History map[Key][]StateEvent
	// HistoryGen marks the last change of any history: the same
	// non-zero number as an earlier frame's means every history is the
	// same (an idle host's readings). 0 when the frame's maker kept no
	// marks.
	HistoryGen uint64
	// HistoryGens is each history's change mark
	// (Tracker.HistoriesMarked): a QP whose mark is the same non-zero
	// number as in an earlier frame has the same history, and a reader
	// passes over it without a look at its events (an idle host's
	// 10,000). Nil when the frame's maker kept none (a frame built by
	// hand, a replay): every history is then to be looked at.
	HistoryGens map[Key]uint64
	// Err is why this snapshot failed (Snapshot is nil); watching goes
	// on.
	Err error
	// Trace is what trace said of the traced modifies when the frame
	// was made (WatchOptions.Modifies); nil when nothing is traced.
	Trace *TraceStatus
	// FromTrace is set when Snapshot's objects were built from the last
	// reading and trace's events (WatchOptions.Reconcile), not dumped
	// whole.
	FromTrace bool
	// Reconcile is the interval of whole dumps when trace drives the
	// readings; zero when every reading dumps.
	Reconcile time.Duration
}

// Watcher takes snapshots of a Conn at an interval, feeds them to a
// Tracker and delivers each as a Frame: the live stream of the inspector.
type Watcher struct {
	loop *pace.Loop[Frame]
}

// Watch starts watching c: a snapshot now, then one after every
// interval, until ctx ends or Close. Each snapshot is bounded by ctx, so
// ending it interrupts a dump in progress, and by its deadline
// (WatchOptions.Deadline), so a dump that hangs fails its frame and
// watching goes on. Watch does not close c.
func Watch(ctx context.Context, c *Conn, o WatchOptions) *Watcher {
	t := NewTracker(o.Tracker)
	deadline := o.Deadline
	if deadline <= 0 {
		deadline = defaultSnapshotDeadline
	}
	var seq uint64
	var lastEnd, lastTook atomic.Int64 // for the wakes (wakeOnModify)
	rc := newReconciler(c, o)
	read := func(ctx context.Context) Frame {
		start := time.Now()
		defer func() {
			end := time.Now()
			lastEnd.Store(end.UnixNano())
			lastTook.Store(int64(end.Sub(start)))
		}()
		seq++
		f := Frame{Seq: seq, Reconcile: rc.every}
		if o.Modifies != nil {
			st := o.Modifies.Status()
			f.Trace = &st
		}
		sctx, cancel := context.WithTimeout(ctx, deadline)
		s, fromTrace, err := rc.read(sctx, f.Trace)
		cancel()
		if err != nil || ctx.Err() != nil {
			f.Err = err
			if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				f.Err = fmt.Errorf("inspect: watch: the snapshot did not end within %v and was cut short (a netlink dump that never ends); the next one comes after the interval: %w", deadline, err)
			}
			return f
		}
		f.FromTrace = fromTrace
		if o.Modifies != nil {
			o.Modifies.take(t)
		}
		f.Snapshot, f.Update = s, t.Update(s)
		f.History, f.HistoryGen, f.HistoryGens = t.HistoriesMarked()
		return f
	}
	w := &Watcher{loop: pace.Start(ctx, pace.New(o.Interval, DefaultWatchInterval, o.clock), read, nil)}
	if o.Modifies != nil {
		go w.wakeOnModify(o.Modifies, func() time.Time {
			gap := max(traceWakeGap, time.Duration(lastTook.Load()))
			return time.Unix(0, lastEnd.Load()).Add(gap)
		})
	}
	return w
}

// wakeOnModify asks for a snapshot when q receives modifies, no sooner
// than soonest() (traceWakeGap after the last snapshot, or as long as it
// took) and an interval after the last one it asked for. Modifies that
// arrive meanwhile are covered by the same snapshot (the Pacer
// coalesces requests). It ends with the loop.
func (w *Watcher) wakeOnModify(q *ModifyQueue, soonest func() time.Time) {
	var last time.Time
	for {
		select {
		case <-w.loop.Done():
			return
		case <-q.wake:
		}
		due := soonest()
		if next := last.Add(w.loop.Interval()); next.After(due) {
			due = next
		}
		if d := time.Until(due); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-w.loop.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
		last = time.Now()
		w.loop.Refresh()
	}
}

// Frames returns the channel frames arrive on. It holds at most one
// frame: a newer frame replaces one not yet received, so a slow reader
// sees the latest state, never a queue. It is closed when watching ends
// (ctx ended, or Close).
func (w *Watcher) Frames() <-chan Frame { return w.loop.Out() }

// Refresh asks for a snapshot now, without waiting for it: the dashboard
// calls it after each shell command. Requests made while a snapshot is
// being taken are coalesced into one more; while paused they are
// dropped.
func (w *Watcher) Refresh() { w.loop.Refresh() }

// SetPaused stops (true) or resumes (false) the snapshots. A snapshot in
// progress when the watcher is paused is not delivered; resuming takes a
// snapshot at once.
func (w *Watcher) SetPaused(paused bool) { w.loop.SetPaused(paused) }

// SetInterval changes the pause between snapshots (d <= 0: the default);
// the pause under way restarts with it.
func (w *Watcher) SetInterval(d time.Duration) { w.loop.SetInterval(d) }

// Close stops watching: it interrupts a dump in progress (the snapshot's
// context is cancelled, which wakes the socket's receive), waits for the
// watching goroutine to end, and closes Frames. It is safe to call more
// than once; it does not close the Conn.
func (w *Watcher) Close() error {
	w.loop.Close()
	return nil
}
