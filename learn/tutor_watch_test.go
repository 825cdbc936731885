package learn

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// fakeKernel is a Kernel whose QP states a test sets, as the kernel
// moves a QP without a command.
type fakeKernel struct {
	mu     sync.Mutex
	states map[uint32]rdma.QPState
	others map[string]map[rdma.Kind]int
}

func (k *fakeKernel) View(int) (*KernelView, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	kv := &KernelView{QPStates: map[uint32]rdma.QPState{}, Others: map[string]map[rdma.Kind]int{}}
	for n, s := range k.states {
		kv.QPStates[n] = s
	}
	for c, m := range k.others {
		kv.Others[c] = map[rdma.Kind]int{}
		for kind, n := range m {
			kv.Others[c][kind] = n
		}
	}
	return kv, nil
}

func (k *fakeKernel) set(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f()
}

// asyncCourse: one lesson whose steps end without a command.
func asyncCourse(t *testing.T) []Lesson {
	t.Helper()
	src := "# Async\nThings happen.\n" +
		"## Make\nMake qp1.\n```solution\nmk qp qp1\n```\n```check\nexpect qp1\n```\n" +
		"## Refused\nBe refused.\n```solution\n! bogus\n```\n```check\nexpect refusal\n```\n" +
		"## The kernel moves it\nWait for ERR.\n```solution\nset qp1 ERR\n```\n```check\nexpect qp1 state=ERR\n```\n" +
		"## The other program ends\nMake it fail, wait.\n```solution\npoll cq1 qp1 SEND REM_OP_ERR -\n```\n```check\nexpect cq1 completion status=REM_OP_ERR\nexpect object qp count=0 owner=peer\n```\n" +
		"## An event\nWait for it.\n```solution\nevent CQ_ERR cq1\n```\n```check\nexpect event CQ_ERR on=cq1\n```\n"
	l, err := parse("01-async.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return []Lesson{l}
}

// nextLesson waits for the tutor's next EventLesson.
func nextLesson(t *testing.T, events <-chan front.Event) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Kind == front.EventLesson {
				return ev.Text
			}
		case <-timeout:
			t.Fatal("no lesson event within 10 s")
		}
	}
}

// A step done by the kernel, another program or an async event is
// judged without a command, and said as an EventLesson; steps only a
// command can do are left alone.
func TestTutorRechecksBetweenCommands(t *testing.T) {
	k := &fakeKernel{states: map[uint32]rdma.QPState{}, others: map[string]map[rdma.Kind]int{"peer": {rdma.KindQP: 1}}}
	var shells []*fakeShell
	tu, _, err := NewTutor(context.Background(), TutorOptions{Lessons: asyncCourse(t), Kernel: k, Recheck: 10 * time.Millisecond,
		NewEngine: func() front.Engine { f := newFake(); shells = append(shells, f); return f }})
	if err != nil {
		t.Fatal(err)
	}
	defer tu.Close()
	ctx := context.Background()
	// A refusal step is never passed by a recheck, though the refusal
	// that ended the step before it is still the last outcome.
	if _, err := tu.Exec(ctx, "bogus"); err == nil {
		t.Fatal("bogus ran")
	}
	if res, _ := tu.Exec(ctx, "mk qp qp1"); !strings.Contains(res.Text, "Step 2 of 5: Refused") {
		t.Fatalf("step 1:\n%s", res.Text)
	}
	// A whole recheck before the status, not a pause that may hold
	// none: ours, or, when the watcher's holds the lock (recheck does
	// not wait), the watcher's, waited out.
	if text, err := tu.recheck(ctx); text != "" || err != nil {
		t.Fatalf("a recheck of the refusal step said %q, %v", text, err)
	}
	tu.execMu.Lock()
	//lint:ignore SA2001 the lock is taken only to wait for a running recheck to end
	tu.execMu.Unlock()
	if st := tu.Status(); st.Step != 2 {
		t.Fatalf("a recheck passed the refusal step: at step %d", st.Step)
	}
	tu.Exec(ctx, "bogus")
	tu.Exec(ctx, "mk pd pd0")
	if st := tu.Status(); st.Step != 3 || !st.Checks[0].Judged || st.Checks[0].OK {
		t.Fatalf("step 3 after a command: %+v", st)
	}
	qp1, _ := shells[0].st.Object("qp1")
	qpn := qp1.QPN
	k.set(func() { k.states[qpn] = rdma.QPStateErr })
	if got := nextLesson(t, tu.Events()); !strings.Contains(got, "✓ The kernel moves it") || !strings.Contains(got, "Step 4 of 5") {
		t.Errorf("the kernel's ERR:\n%s", got)
	}
	// The diagram shows the kernel's state of the newest QP (the shell
	// still has it in RESET).
	if d := cmp.Diff(QPStatus{Name: "qp1", State: rdma.QPStateErr, Next: []rdma.QPState{rdma.QPStateReset}}, tu.Status().QP); d != "" {
		t.Errorf("the QP after the kernel moved it (-want +got):\n%s", d)
	}
	// A completion polled, then another process's objects go.
	if res, _ := tu.Exec(ctx, "poll cq1 qp1 SEND REM_OP_ERR -"); strings.Contains(res.Text, "✓") {
		t.Fatalf("step 4 passed while the peer's QP lives:\n%s", res.Text)
	}
	k.set(func() { k.others["peer"][rdma.KindQP] = 0 })
	if got := nextLesson(t, tu.Events()); !strings.Contains(got, "✓ The other program ends") {
		t.Errorf("the other program's end:\n%s", got)
	}
	// The async event wakes the watcher at once, not at the next tick.
	shells[0].events <- front.Event{Kind: front.EventAsync, Object: "cq1", Text: "CQ_ERR on cq1: overrun"}
	if got := nextLesson(t, tu.Events()); !strings.Contains(got, "✓ An event") || !strings.Contains(got, "the course is complete") {
		t.Errorf("the async event:\n%s", got)
	}
	if !shells[0].closed {
		t.Error("the lesson's shell was not closed at the course's end")
	}
}

// The watcher never waits for a running command, and judges only when
// woken when the interval is long.
func TestRecheckWaitsForNothing(t *testing.T) {
	k := &fakeKernel{states: map[uint32]rdma.QPState{}}
	tu, _, err := NewTutor(context.Background(), TutorOptions{Lessons: asyncCourse(t), Kernel: k, Recheck: time.Hour,
		NewEngine: func() front.Engine { return newFake() }})
	if err != nil {
		t.Fatal(err)
	}
	defer tu.Close()
	ctx := context.Background()
	tu.Exec(ctx, "mk qp qp1")
	tu.Exec(ctx, "bogus")
	tu.Exec(ctx, "mk pd pd0")
	k.set(func() { k.states[1] = rdma.QPStateErr })
	tu.execMu.Lock() // a command runs
	text, err := tu.recheck(ctx)
	tu.execMu.Unlock()
	if text != "" || err != nil || tu.Status().Step != 3 {
		t.Errorf("Recheck during a command: %q %v, step %d", text, err, tu.Status().Step)
	}
	if text, err := tu.recheck(ctx); !strings.Contains(text, "✓ The kernel moves it") || err != nil {
		t.Errorf("Recheck: %q %v", text, err)
	}
	if err := tu.Close(); err != nil {
		t.Fatal(err)
	}
	if text, err := tu.recheck(ctx); text != "" || err != nil {
		t.Errorf("Recheck after Close: %q %v", text, err)
	}
}
