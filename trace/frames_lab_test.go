//go:build lab

package trace

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
	"github.com/verbscope/verbscope/internal/syncio"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// frameLog keeps a Watcher's newest good frame and counts the frames
// built from trace and the whole dumps; trail says of the last frames
// how each was built and whether it held a QP twice, for a failure to
// tell where a difference came in.
type frameLog struct {
	mu            sync.Mutex
	last          inspect.Frame
	traced, dumps int
	trail         []string
}

func logFrames(w *inspect.Watcher) *frameLog {
	l := &frameLog{}
	go func() {
		for f := range w.Frames() {
			if f.Snapshot == nil {
				continue
			}
			how := "dump"
			if f.FromTrace {
				how = "trace"
			}
			seen, twice := map[string]bool{}, []string{}
			for _, q := range f.Snapshot.QPs {
				k := fmt.Sprintf("%s/%d", q.DevName, q.LQPN)
				if seen[k] {
					twice = append(twice, k)
				}
				seen[k] = true
			}
			line := fmt.Sprintf("seq %d %s at %s: %d QPs", f.Seq, how, f.Snapshot.Time.Format("15:04:05.000"), len(f.Snapshot.QPs))
			if len(twice) > 0 {
				line += fmt.Sprintf(", twice: %v", twice)
			}
			l.mu.Lock()
			l.last = f
			if f.FromTrace {
				l.traced++
			} else {
				l.dumps++
			}
			l.trail = append(l.trail, line)
			if len(l.trail) > 40 {
				l.trail = l.trail[1:]
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *frameLog) newest() inspect.Frame {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.last
}

// qpFacts is what a frame and a dump must agree on for each QP: its
// state and owner (PSNs move between two readings of a live QP).
type qpFacts struct {
	State      rdma.QPState
	Type       rdma.QPType
	Port, PDN  uint32
	PID        uint32
	Comm       string
	Owner      inspect.Owner
	KernelName string
}

func factsOf(s *inspect.Snapshot) (map[string]qpFacts, map[inspect.Kind]int) {
	qps := map[string]qpFacts{}
	for _, q := range s.QPs {
		qps[fmt.Sprintf("%s qp %d", q.DevName, q.LQPN)] = qpFacts{q.State, q.Type, q.Port, q.PDN, q.PID, q.Comm, q.Owner, q.KernName}
	}
	counts := map[inspect.Kind]int{}
	s.Each(func(k inspect.Kind, _ *inspect.Object, _ uint32) { counts[k]++ })
	return qps, counts
}

// sameAsDump waits up to limit for a frame built from trace, whose
// reading started after what the test did, that shows every QP (state
// and owner) and every kind's count as a whole dump taken after it does.
func sameAsDump(t *testing.T, l *frameLog, oracle *inspect.Conn, after time.Time, limit time.Duration, what string) {
	t.Helper()
	var diff string
	done := false
	t.Cleanup(func() {
		if !done && diff != "" {
			// The wait timed out: what the last look found, and how
			// the frames before it were built.
			l.mu.Lock()
			trail := strings.Join(l.trail, "\n")
			l.mu.Unlock()
			t.Logf("%s: the last frame against a dump: %s\nthe last frames:\n%s", what, diff, trail)
		}
	})
	labkit.WaitFor(t, limit, what+": a frame built from trace that a dump agrees with", func() bool {
		f := l.newest()
		if !f.FromTrace || !f.Snapshot.Time.After(after) {
			diff = fmt.Sprintf("no frame from trace since (newest: seq %d, from trace %v)", f.Seq, f.FromTrace)
			return false
		}
		d, err := oracle.Snapshot(context.Background(), inspect.SnapshotOptions{NoCounters: true})
		if err != nil {
			t.Fatal(err)
		}
		fq, fc := factsOf(f.Snapshot)
		dq, dc := factsOf(d)
		diff = cmp.Diff(dq, fq) + cmp.Diff(dc, fc)
		return diff == ""
	})
	done = true
	if diff != "" {
		t.Fatalf("%s: the frame from trace differs from a dump (-dump +frame):\n%s", what, diff)
	}
	l.mu.Lock()
	t.Logf("%s: frames so far: %d built from trace, %d whole dumps", what, l.traced, l.dumps)
	l.mu.Unlock()
}

func dialInspect(t *testing.T) *inspect.Conn {
	t.Helper()
	c, err := inspect.Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestFramesFromTraceMatchDump watches as the dashboard does with trace
// (FeedModifies, readings built from its events, no reconciliation
// during the test) while an ibv_rc_pingpong pair runs, a verbs shell
// connects two QPs and leaves others in INIT and RESET, a helper creates
// 1,000 QPs and destroys them, and the shell's QP goes to ERR: after
// each, a frame built from trace shows every QP with the state and owner
// a whole dump shows, and every kind's count.
func TestFramesFromTraceMatchDump(t *testing.T) {
	labkit.Clean(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q := FeedModifies(ctx, FeedOptions{Env: CachedEnv(verbs.DeviceCheckEnv), Latency: 200 * time.Millisecond})
	labkit.WaitFor(t, labkit.Attach, "trace's QP and restrack programs attached", func() bool {
		st := q.Status()
		return st.Up && st.Objects
	})
	oracle := dialInspect(t)
	w := inspect.Watch(ctx, dialInspect(t), inspect.WatchOptions{Interval: 300 * time.Millisecond, Modifies: q, Reconcile: time.Hour,
		Snapshot: inspect.SnapshotOptions{NoCounters: true}})
	defer w.Close()
	l := logFrames(w)

	runPingpong(t)
	sameAsDump(t, l, oracle, time.Now(), labkit.Step, "after an ibv_rc_pingpong pair")

	sh := exec.Command("verbscope", "shell")
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	said := syncio.NewBuffer()
	sh.Stdout, sh.Stderr = said, said
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		sh.Process.Kill()
		sh.Wait()
		if t.Failed() {
			t.Logf("the shell said:\n%s", said.String())
		}
	})
	io.WriteString(in, "open; pd; cq; qp; qp; connect qp1 qp2; qp; next qp3; qp\n")
	labkit.WaitFor(t, labkit.Run, "the shell's four QPs", func() bool {
		d, err := oracle.Snapshot(context.Background(), inspect.SnapshotOptions{NoCounters: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, q := range d.QPs {
			if q.TGID == uint32(sh.Process.Pid) {
				n++
			}
		}
		return n == 4
	})
	sameAsDump(t, l, oracle, time.Now(), labkit.Step, "a shell's QPs in RTS, INIT and RESET")

	// A burst: trace's reader (in this race-built binary) hands over
	// some 5,000 events before a frame can be built from them alone,
	// 10 s on a quiet host and over 30 s on a loaded one (fc4): the
	// limit of a program run, not of one step.
	_, stop := qpholder.Start(t, 1000)
	sameAsDump(t, l, oracle, time.Now(), labkit.Run, "1,000 QPs created and moved to INIT")
	stop()
	sameAsDump(t, l, oracle, time.Now(), labkit.Run, "the 1,000 destroyed")

	io.WriteString(in, "modify qp1 err\n")
	labkit.WaitFor(t, labkit.Run, "the shell's qp1 in ERR", func() bool {
		d, err := oracle.Snapshot(context.Background(), inspect.SnapshotOptions{NoCounters: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range d.QPs {
			if q.TGID == uint32(sh.Process.Pid) && q.State == rdma.QPStateErr {
				return true
			}
		}
		return false
	})
	sameAsDump(t, l, oracle, time.Now(), labkit.Step, "the shell's QP moved to ERR")
	in.Close()
	if err := sh.Wait(); err != nil {
		t.Errorf("the shell: %v", err)
	}
	sameAsDump(t, l, oracle, time.Now(), labkit.Step, "the shell gone")
}

// TestFramesWithoutTraceShowEachChange: without trace every reading is a
// whole dump, and the first reading that starts after a change shows it:
// a QP created, moved to INIT, to ERR, destroyed.
func TestFramesWithoutTraceShowEachChange(t *testing.T) {
	labkit.Clean(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := inspect.Watch(ctx, dialInspect(t), inspect.WatchOptions{Interval: 300 * time.Millisecond, Snapshot: inspect.SnapshotOptions{NoCounters: true}})
	defer w.Close()
	dev, err := verbs.Open(labkit.Env(t, "LAB_DEV"))
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	pd, err := dev.AllocPD()
	if err != nil {
		t.Fatal(err)
	}
	cq, err := dev.CreateCQ(16, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		t.Fatal(err)
	}
	num := qp.Num()
	stateIn := func(f inspect.Frame) (rdma.QPState, bool) {
		for _, q := range f.Snapshot.QPs {
			if q.LQPN == num && q.DevName == labkit.Env(t, "LAB_DEV") {
				return q.State, true
			}
		}
		var none rdma.QPState
		return none, false
	}
	// firstAfter is the first good frame whose reading started after at.
	firstAfter := func(at time.Time) inspect.Frame {
		var f inspect.Frame
		labkit.WaitFor(t, labkit.Step, "a reading started after the change", func() bool {
			select {
			case f = <-w.Frames():
				return f.Snapshot != nil && f.Snapshot.Time.After(at)
			case <-time.After(time.Second):
				return false
			}
		})
		if f.FromTrace {
			t.Fatal("a watcher without trace built a frame from trace")
		}
		return f
	}
	if st, ok := stateIn(firstAfter(time.Now())); !ok || st != rdma.QPStateReset {
		t.Errorf("the next reading after the create: QP %d in %q (shown %v), want RESET", num, st, ok)
	}
	init := verbs.QPAttr{State: rdma.QPStateInit, Port: 1, AccessFlags: rdma.AccessLocalWrite}
	if err := qp.Modify(&init, rdma.AttrState|rdma.AttrPKeyIndex|rdma.AttrPort|rdma.AttrAccessFlags); err != nil {
		t.Fatal(err)
	}
	if st, ok := stateIn(firstAfter(time.Now())); !ok || st != rdma.QPStateInit {
		t.Errorf("the next reading after the move to INIT: QP %d in %q (shown %v), want INIT", num, st, ok)
	}
	if err := qp.Modify(&verbs.QPAttr{State: rdma.QPStateErr}, rdma.AttrState); err != nil {
		t.Fatal(err)
	}
	if st, ok := stateIn(firstAfter(time.Now())); !ok || st != rdma.QPStateErr {
		t.Errorf("the next reading after the move to ERR: QP %d in %q (shown %v), want ERR", num, st, ok)
	}
	if err := qp.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, ok := stateIn(firstAfter(time.Now())); ok {
		t.Errorf("the next reading after the destroy still shows QP %d", num)
	}
}
