//go:build lab

package inspect

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/verbscope/verbscope/internal/labkit"
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
							l.seen[q.PID] = Key{KindQP, q.DevName, q.LQPN}
						}
					}
				}
				for _, ch := range f.Update.Disappeared {
					if ch.Key.Kind == KindQP && want[ch.PID] {
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
	gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
	c := dial(t)
	waitIdle(t, c)
	w := Watch(context.Background(), c, WatchOptions{Interval: 20 * time.Millisecond, Snapshot: SnapshotOptions{NoCounters: true}})
	defer w.Close()

	srv := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "300")
	labkit.WaitFor(t, 30*time.Second, "the server's QP to exist", func() bool { return len(qpsOf(t, c, srv.PID())) == 1 })
	cli := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "300", ip)
	log := follow(w, srv.PID(), cli.PID())
	srv.Wait(t, 10*time.Minute)
	cli.Wait(t, time.Minute)
	labkit.WaitFor(t, 30*time.Second, "both QPs to appear in frames and then go", func() bool {
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
		if s := h[0].State; s != QPStateReset && s != QPStateInit && s != QPStateRTR && s != QPStateRTS {
			t.Errorf("%s QP first seen in %v", who, s)
		}
		rts := false
		for i, e := range h {
			rts = rts || e.State == QPStateRTS
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

// manyQPs is how many QPs the close tests dump: enough that a dump takes
// a good while in the emulated lab (about 40 ms per thousand).
const manyQPs = 3000

// TestCloseDuringBigDump: with 3,000 QPs in another process (a Go
// program, whose QPs' pid may be a thread id: tgid must name the
// process), the QP dump, once its first reply has arrived, is interrupted
// by cancelling Snapshot's context (after which the Conn opens a new
// socket and sees every QP again), by Watcher.Close and by Conn.Close,
// each returning within 200 ms, and with an error: the dump did not
// finish.
func TestCloseDuringBigDump(t *testing.T) {
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

	// The Conn's tap sees each request and reply message: the first
	// reply of a QP dump says the dump is under way. After the cut it
	// logs what still arrives.
	inDump := make(chan struct{}, 1)
	var (
		tapMu   sync.Mutex
		replies int
		cutAt   time.Time
		after   []string
	)
	c.mu.Lock()
	c.tap = func(req netlink.Message, reply *netlink.Message) {
		tapMu.Lock()
		defer tapMu.Unlock()
		if !cutAt.IsZero() {
			what := "request"
			if reply != nil {
				what = "reply"
			}
			after = append(after, fmt.Sprintf("%s %#x at +%v", what, uint16(req.Header.Type), time.Since(cutAt).Round(time.Millisecond)))
		}
		if reply == nil {
			replies = 0
			return
		}
		replies++
		if replies == 1 && uint16(req.Header.Type) == msgType(CmdResQPGet) {
			select {
			case inDump <- struct{}{}:
			default:
			}
		}
	}
	c.mu.Unlock()

	// interrupt starts a snapshot, waits for its QP dump to begin, calls
	// cut and reports how long the snapshot took to return after it.
	interrupt := func(name string, snap func() error, cut func()) {
		t.Helper()
		select {
		case <-inDump: // from the dump before
		default:
		}
		errc := make(chan error, 1)
		go func() { errc <- snap() }()
		select {
		case <-inDump:
		case <-time.After(time.Minute):
			t.Fatalf("%s: the QP dump did not start", name)
		}
		tapMu.Lock()
		cutAt, after = time.Now(), nil
		tapMu.Unlock()
		t1 := time.Now()
		cut()
		var err error
		select {
		case err = <-errc:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: the snapshot did not return", name)
		}
		took := time.Since(t1)
		tapMu.Lock()
		t.Logf("%s: after the cut: %v", name, after)
		cutAt = time.Time{}
		tapMu.Unlock()
		t.Logf("%s: returned %v after the interruption (a full snapshot takes %v): %v", name, took, full, err)
		if err == nil {
			t.Errorf("%s: the snapshot completed: the dump was not interrupted", name)
		}
		if took > 200*time.Millisecond {
			t.Errorf("%s: took %v to return, want at most 200 ms", name, took)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	interrupt("cancel", func() error {
		_, err := c.Snapshot(ctx, SnapshotOptions{NoCounters: true})
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled snapshot: %v, want context.Canceled", err)
		}
		return err
	}, cancel)
	s, err = c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
	if err != nil {
		t.Fatalf("the snapshot after a cancelled one: %v", err)
	}
	if n := len(qpsOfProcess(s, pid)); n != manyQPs {
		t.Fatalf("the snapshot after a cancelled one: %d QPs of the holder, want %d", n, manyQPs)
	}

	// Watch starts in the snapshot's goroutine, so that the first QP
	// dump of the Watcher is the one the cut waits for.
	watcher := make(chan *Watcher, 1)
	var closeTook time.Duration
	interrupt("Watcher.Close", func() error {
		w := Watch(context.Background(), c, WatchOptions{Interval: time.Hour, Snapshot: SnapshotOptions{NoCounters: true}})
		watcher <- w
		var got []Frame
		for f := range w.Frames() {
			got = append(got, f)
		}
		if len(got) != 0 {
			return nil // a frame came: the dump was not interrupted
		}
		return ErrClosed
	}, func() {
		w := <-watcher
		t1 := time.Now()
		w.Close()
		closeTook = time.Since(t1)
	})
	t.Logf("Watcher.Close itself returned after %v", closeTook)

	interrupt("Conn.Close", func() error {
		_, err := c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
		if err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("snapshot under Close: %v, want ErrClosed", err)
		}
		return err
	}, func() { c.Close() })
}
