//go:build lab

package inspect

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// frameLog collects what a Watcher delivers, for a test to wait on.
type frameLog struct {
	mu      sync.Mutex
	last    Frame
	n       int
	errs    []error
	seen    map[uint32]Key // a pid's QP, from the first frame that had it
	goneQPs map[Key]bool
	done    chan struct{}
}

func follow(w *Watcher, pids ...uint32) *frameLog {
	l := &frameLog{seen: map[uint32]Key{}, goneQPs: map[Key]bool{}, done: make(chan struct{})}
	want := map[uint32]bool{}
	for _, p := range pids {
		want[p] = true
	}
	go func() {
		defer close(l.done)
		for f := range w.Frames() {
			l.mu.Lock()
			l.n++
			if f.Err != nil {
				l.errs = append(l.errs, f.Err)
			} else {
				l.last = f
				for _, q := range f.Snapshot.QPs {
					if want[q.PID] {
						if _, ok := l.seen[q.PID]; !ok {
							l.seen[q.PID] = Key{rdma.KindQP, q.DevName, q.LQPN}
						}
					}
				}
				for _, ch := range f.Update.Disappeared {
					if ch.Key.Kind == rdma.KindQP && want[ch.PID] {
						l.goneQPs[ch.Key] = true
					}
				}
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *frameLog) with(fn func(l *frameLog) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fn(l)
}

// TestWatchPingpong watches rxe0 every 20 ms while an ibv_rc_pingpong
// pair runs: both QPs appear in the frames, their histories (in the last
// frame) reach RTS from RESET or INIT, as far as the polls saw, and they
// go away when the pair ends, each history closed by a Gone event.
func TestWatchPingpong(t *testing.T) {
	labkit.Clean(t)
	gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
	c := dial(t)
	waitIdle(t, c)
	w := Watch(context.Background(), c, WatchOptions{Interval: 20 * time.Millisecond, Snapshot: SnapshotOptions{NoCounters: true}})
	defer w.Close()

	srv := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "300")
	labkit.WaitFor(t, labkit.Step, "the server's QP to exist", func() bool { return len(qpsOf(t, c, srv.PID())) == 1 })
	cli := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "300", ip)
	log := follow(w, srv.PID(), cli.PID())
	srv.Wait(t, 10*time.Minute)
	cli.Wait(t, labkit.Run)
	labkit.WaitFor(t, labkit.Step, "both QPs to appear in frames and then go", func() bool {
		return log.with(func(l *frameLog) bool {
			return len(l.seen) == 2 && l.goneQPs[l.seen[srv.PID()]] && l.goneQPs[l.seen[cli.PID()]]
		})
	})
	w.Close()
	<-log.done
	log.mu.Lock()
	defer log.mu.Unlock()
	t.Logf("%d frames, %d failed: %v", log.n, len(log.errs), log.errs)
	if len(log.errs) > 0 {
		t.Errorf("failed snapshots: %v", log.errs)
	}
	for who, pid := range map[string]uint32{"server": srv.PID(), "client": cli.PID()} {
		k := log.seen[pid]
		h := log.last.History[k]
		t.Logf("%s QP %d history: %+v", who, k.ID, h)
		for _, q := range log.last.Snapshot.QPs {
			if q.PID == pid {
				t.Errorf("%s QP still in the last snapshot: %+v", who, q)
			}
		}
		if len(h) < 2 || !h[len(h)-1].Gone {
			t.Errorf("%s QP: history does not end with Gone: %+v", who, h)
			continue
		}
		if s := h[0].State; s != rdma.QPStateReset && s != rdma.QPStateInit && s != rdma.QPStateRTR && s != rdma.QPStateRTS {
			t.Errorf("%s QP first seen in %v", who, s)
		}
		rts := false
		for i, e := range h {
			rts = rts || e.State == rdma.QPStateRTS
			if i > 0 && e.Time.Before(h[i-1].Time) {
				t.Errorf("%s QP: event %d before event %d", who, i, i-1)
			}
			if i > 0 && i < len(h)-1 && e.State <= h[i-1].State {
				t.Errorf("%s QP: state went from %v to %v", who, h[i-1].State, e.State)
			}
		}
		if !rts {
			t.Errorf("%s QP never seen in RTS: %+v", who, h)
		}
	}
}

// qpsOfProcess returns the QPs whose tgid is pid: the process's, whichever
// of its threads made them.
func qpsOfProcess(s *Snapshot, pid uint32) []QP {
	var out []QP
	for _, q := range s.QPs {
		if q.TGID == pid {
			out = append(out, q)
		}
	}
	return out
}

// manyQPs is how many QPs the interruption tests dump: enough that a
// dump takes a good while in the emulated lab (seconds under load).
const manyQPs = 3000

// dumpTap uses a Conn's tap (it sees every request and reply message) to
// tell when a QP dump has its first reply, and to count the replies that
// still arrive once the test has cut the dump short.
type dumpTap struct {
	first   chan struct{}
	mu      sync.Mutex
	replies int // of the request under way
	cut     bool
	after   int
}

func tapDumps(c *Conn) *dumpTap {
	d := &dumpTap{first: make(chan struct{}, 1)}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tap = func(req netlink.Message, reply *netlink.Message) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if reply == nil {
			d.replies = 0
			return
		}
		if d.cut {
			d.after++
		}
		d.replies++
		if d.replies == 1 && uint16(req.Header.Type) == msgType(CmdResQPGet) {
			select {
			case d.first <- struct{}{}:
			default:
			}
		}
	}
	return d
}

// interrupted is what interruptDump saw: how long the snapshot took to
// return after the cut, what it returned, and how many replies came
// after the cut.
type interrupted struct {
	took  time.Duration
	err   error
	after int
}

// interruptDump runs snap, waits for its QP dump's first reply, calls
// cut and waits for snap to return.
func interruptDump(tb testing.TB, d *dumpTap, snap func() error, cut func()) interrupted {
	tb.Helper()
	select {
	case <-d.first: // from the dump before
	default:
	}
	errc := make(chan error, 1)
	go func() { errc <- snap() }()
	select {
	case <-d.first:
	case <-time.After(labkit.Step):
		tb.Fatal("the QP dump did not start")
	}
	d.mu.Lock()
	d.cut, d.after = true, 0
	d.mu.Unlock()
	t0 := time.Now()
	cut()
	var r interrupted
	select {
	case r.err = <-errc:
	case <-time.After(labkit.Step):
		tb.Fatal("the snapshot did not return after the cut")
	}
	r.took = time.Since(t0)
	d.mu.Lock()
	r.after, d.cut = d.after, false
	d.mu.Unlock()
	return r
}

// watchUntilClosed starts a Watcher in the calling goroutine, hands it
// over, and reports ErrClosed if Frames closed without a frame (its first
// dump was cut short), nil if a frame came.
func watchUntilClosed(c *Conn, handover chan<- *Watcher) error {
	w := Watch(context.Background(), c, WatchOptions{Interval: time.Hour, Snapshot: SnapshotOptions{NoCounters: true}})
	handover <- w
	n := 0
	for range w.Frames() {
		n++
	}
	if n > 0 {
		return nil
	}
	return ErrClosed
}

// TestCloseDuringBigDump: with 3,000 QPs in another process (a Go
// program, whose QPs' pid may be a thread id: tgid must name the
// process), a dump under way (its first reply in) is cut short by
// cancelling Snapshot's context (after which the Conn opens a new socket
// and sees every QP again), by Watcher.Close and by Conn.Close: each
// snapshot fails with the cause, and at most the one reply in flight
// arrives after the cut, where the whole dump is dozens. How fast is
// BenchmarkInterruptDump's to measure (target: 200 ms).
func TestCloseDuringBigDump(t *testing.T) {
	labkit.Clean(t)
	pid, stop := startHolder(t, manyQPs)
	defer stop()
	c := dial(t)
	t0 := time.Now()
	s, err := c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
	full := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	held, threads := qpsOfProcess(s, pid), 0
	for _, q := range held {
		if q.PID != pid {
			threads++
		}
	}
	t.Logf("a full snapshot: %v, %d QPs of the holder (pid %d), %d of them with a thread's pid", full, len(held), pid, threads)
	if len(held) != manyQPs {
		t.Fatalf("%d QPs with tgid %d, want %d", len(held), pid, manyQPs)
	}
	d := tapDumps(c)
	check := func(name string, r interrupted, want error) {
		t.Helper()
		t.Logf("%s: returned %v after the cut (a full snapshot took %v), %d replies after it: %v", name, r.took, full, r.after, r.err)
		if !errors.Is(r.err, want) {
			t.Errorf("%s: %v, want %v", name, r.err, want)
		}
		if r.after > 1 {
			t.Errorf("%s: %d replies after the cut: the dump went on", name, r.after)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	check("cancel", interruptDump(t, d, func() error {
		_, err := c.Snapshot(ctx, SnapshotOptions{NoCounters: true})
		return err
	}, cancel), context.Canceled)
	s, err = c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
	if err != nil {
		t.Fatalf("the snapshot after a cancelled one: %v", err)
	}
	if n := len(qpsOfProcess(s, pid)); n != manyQPs {
		t.Fatalf("the snapshot after a cancelled one: %d QPs of the holder, want %d", n, manyQPs)
	}

	ws := make(chan *Watcher, 1)
	check("Watcher.Close", interruptDump(t, d, func() error { return watchUntilClosed(c, ws) }, func() { (<-ws).Close() }), ErrClosed)

	check("Conn.Close", interruptDump(t, d, func() error {
		_, err := c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
		return err
	}, func() { c.Close() }), ErrClosed)
}

// BenchmarkInterruptDump measures how fast a dump of 3,000 QPs under way
// ends when its context is cancelled (cancel-ms, the median) and when
// its Watcher is closed (close-ms): from the cut to the snapshot's
// return, the stop of the dashboard's and the exporter's loops.
func BenchmarkInterruptDump(b *testing.B) {
	labkit.Env(b, "LAB_DEV")
	_, stop := startHolder(b, manyQPs)
	defer stop()
	c := dial(b)
	d := tapDumps(c)
	var cancels, closes []time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		r := interruptDump(b, d, func() error {
			_, err := c.Snapshot(ctx, SnapshotOptions{NoCounters: true})
			return err
		}, cancel)
		if !errors.Is(r.err, context.Canceled) {
			b.Fatalf("cancelled snapshot: %v", r.err)
		}
		cancels = append(cancels, r.took)
		ws := make(chan *Watcher, 1)
		r = interruptDump(b, d, func() error { return watchUntilClosed(c, ws) }, func() { (<-ws).Close() })
		if !errors.Is(r.err, ErrClosed) {
			b.Fatalf("watcher: %v", r.err)
		}
		closes = append(closes, r.took)
	}
	median := func(ds []time.Duration) float64 {
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Microseconds()) / 1000
	}
	b.ReportMetric(median(cancels), "cancel-ms")
	b.ReportMetric(median(closes), "close-ms")
}
