//go:build lab

package shell

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// mustExec runs commands that must succeed.
func mustExec(t *testing.T, s *Shell, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := s.Exec(context.Background(), l); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
}

func labShell(t *testing.T) *Shell {
	s := New(Options{Device: os.Getenv("LAB_DEV")})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// TestStateAfterCommands reads the snapshot after real commands on rxe0:
// every object with its kind, parent and device, the QP's number, state,
// CQs, history and legal steps, the CQ's and MR's values as the device
// gave them (checked against the commands' own results).
func TestStateAfterCommands(t *testing.T) {
	labkit.Clean(t)
	s := labShell(t)
	dev := os.Getenv("LAB_DEV")
	mustExec(t, s, "open", "pd", "cq size=10")
	qpRes, err := s.Exec(context.Background(), "qp type=rc")
	if err != nil {
		t.Fatal(err)
	}
	mrRes, err := s.Exec(context.Background(), "mr size=4096 access=local_write,remote_write")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, s, "next qp1")
	st := s.State()
	if st.Running != "" || st.PID != os.Getpid() {
		t.Errorf("running %q pid %d", st.Running, st.PID)
	}
	var names []string
	objs := slices.Collect(st.Objects())
	for _, o := range objs {
		names = append(names, string(o.Kind)+":"+o.Name+"<"+o.Parent+"@"+o.Device)
	}
	want := []string{"ctx:ctx1<@" + dev, "pd:pd1<ctx1@" + dev, "cq:cq1<ctx1@" + dev, "qp:qp1<pd1@" + dev, "mr:mr1<pd1@" + dev}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("objects in creation order (-want +got):\n%s", diff)
	}
	cq, qp, mr := objs[2], objs[3], objs[4]
	if cq.CQE < 10 {
		t.Errorf("cq1 has %d entries, asked for 10", cq.CQE)
	}
	qd := qpRes.Data.(map[string]any)
	if qp.QPN != qd["qpn"].(uint32) || qp.QPType != rdma.QPTypeRC || qp.State != rdma.QPStateInit || qp.SendCQ != "cq1" || qp.RecvCQ != "cq1" || qp.Port != 1 {
		t.Errorf("qp1 %+v; created as %v", qp, qd)
	}
	if len(qp.History) != 1 || qp.History[0].From != rdma.QPStateReset || qp.History[0].To != rdma.QPStateInit || qp.History[0].At.IsZero() {
		t.Errorf("qp1 history %+v, want RESET→INIT", qp.History)
	}
	steps := map[rdma.QPState]front.Step{}
	next := qp.NextSteps()
	for _, n := range next {
		steps[n.To] = n
	}
	if rtr := steps[rdma.QPStateRTR]; !rtr.Legal || !slices.Contains(rtr.Needs, "DEST_QPN") || !slices.Contains(rtr.Needs, "AV") {
		t.Errorf("INIT→RTR %+v, want legal and needing DEST_QPN and AV", rtr)
	}
	if rts := steps[rdma.QPStateRTS]; rts.Legal || rts.Why == "" {
		t.Errorf("INIT→RTS %+v, want illegal with a reason", rts)
	}
	if len(next) != 7 {
		t.Errorf("%d steps judged, want one per state (7)", len(next))
	}
	md := mrRes.Data.(map[string]any)
	if mr.Addr != md["addr"] || mr.Length != 4096 || mr.LKey != md["lkey"] || mr.RKey != md["rkey"] || mr.Access != md["access"] {
		t.Errorf("mr1 %+v; registered as %v", mr, md)
	}
	// The snapshot is a copy: what the caller holds does not change.
	mustExec(t, s, "destroy qp1")
	if _, ok := st.Object("qp1"); st.Len() != 5 || s.State().Len() != 4 || !ok {
		t.Errorf("after destroy qp1: the old snapshot has %d objects, the new %d", st.Len(), s.State().Len())
	}
}

// TestEventWhileIdle adds an address to the lab's netdev while no command
// runs: rxe raises GID_CHANGE, and the session's event stream delivers it
// at once, not at the next command.
func TestEventWhileIdle(t *testing.T) {
	labkit.Clean(t)
	s := labShell(t)
	mustExec(t, s, "open")
	drain(s, 500*time.Millisecond) // the open's own
	if out, err := exec.Command("/usr/sbin/ip", "addr", "add", "10.0.0.79/24", "dev", "veth0").CombinedOutput(); err != nil {
		t.Fatalf("ip addr add: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("/usr/sbin/ip", "addr", "del", "10.0.0.79/24", "dev", "veth0").Run() })
	deadline := time.After(labkit.Step)
	for {
		select {
		case ev := <-s.Events():
			if ev.Kind != front.EventAsync || !strings.Contains(ev.Text, "GID_CHANGE") {
				continue
			}
			if st := s.State(); st.Running != "" {
				t.Errorf("delivered while %q runs", st.Running)
			}
			if !strings.Contains(ev.Text, "port 1") {
				t.Errorf("event text %q does not name the port", ev.Text)
			}
			res, err := s.Exec(context.Background(), "events")
			if err != nil || !strings.Contains(res.Text, "GID_CHANGE") {
				t.Errorf("`events` after it: %v\n%s", err, res.Text)
			}
			return
		case <-deadline:
			t.Fatal("no GID_CHANGE event while idle")
		}
	}
}

func drain(s *Shell, quiet time.Duration) {
	for {
		select {
		case <-s.Events():
		case <-time.After(quiet):
			return
		}
	}
}

// TestListenCancelled starts `listen` with nobody coming: it says it
// listens (a progress event, before any peer), State and Complete answer
// while it waits, and cancelling its context ends it at once with
// context.Canceled, the QP left in INIT.
func TestListenCancelled(t *testing.T) {
	labkit.Clean(t)
	s := labShell(t)
	mustExec(t, s, "open", "pd", "cq", "qp", "mr")
	drain(s, 200*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	const cmd = "listen qp1 port=18777 timeout=10m"
	go func() {
		res, err := s.Exec(ctx, cmd)
		done <- outcome{res, err}
	}()
	var progress front.Event
	select {
	case progress = <-s.Events():
	case <-time.After(labkit.Step):
		t.Fatal("no progress event from listen")
	}
	if progress.Kind != front.EventProgress || progress.Object != "qp1" || !strings.Contains(progress.Text, "listening on TCP port 18777") {
		t.Errorf("first event %+v, want listen's progress", progress)
	}
	if st := s.State(); st.Running != cmd {
		t.Errorf("State while listening: running %q, want %q", st.Running, cmd)
	}
	comp := s.Complete("show ", 5)
	var items []string
	for _, it := range comp.Items {
		items = append(items, it.Text)
	}
	if diff := cmp.Diff([]string{"ctx1", "pd1", "cq1", "qp1", "mr1"}, items, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("Complete while listening (-want +got):\n%s", diff)
	}
	select {
	case o := <-done:
		t.Fatalf("listen returned with nobody coming: %v %v", o.res, o.err)
	default:
	}
	cancel()
	select {
	case o := <-done:
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("listen after cancel: %v, want context.Canceled", o.err)
		}
		var se *Error
		if errors.As(o.err, &se) && (!strings.Contains(se.Output, "listening on TCP port 18777") || se.Fix == "") {
			t.Errorf("the refusal lost what listen did or what to do: %#v", se)
		}
	case <-time.After(labkit.Step):
		t.Fatalf("listen did not end within %v of its context being cancelled", labkit.Step)
	}
	if qp, _ := s.State().Object("qp1"); qp.Name != "qp1" || qp.State != rdma.QPStateInit {
		t.Errorf("after the cancelled listen: %+v, want qp1 in INIT", qp)
	}
	// The session is usable again at once.
	mustExec(t, s, "ls")
}

// TestPollWaitCancelled: `poll wait=` reports progress, leaves the lock
// free while it waits, and ends when Close cancels it.
func TestPollWaitCancelledByClose(t *testing.T) {
	labkit.Clean(t)
	s := New(Options{Device: os.Getenv("LAB_DEV")})
	mustExec(t, s, "open", "pd", "cq")
	drain(s, 200*time.Millisecond)
	done := make(chan error, 1)
	go func() {
		_, err := s.Exec(context.Background(), "poll cq1 wait=10m")
		done <- err
	}()
	select {
	case ev := <-s.Events():
		if ev.Kind != front.EventProgress || !strings.Contains(ev.Text, "cq1: waiting up to 10m0s") {
			t.Errorf("first event %+v, want poll's progress", ev)
		}
	case <-time.After(labkit.Step):
		t.Fatal("no progress event from poll")
	}
	if c := s.Complete("poll c", 6); len(c.Items) != 1 || c.Items[0].Text != "cq1" {
		t.Errorf("Complete while polling: %+v", c.Items)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close during poll: %v", err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("poll after Close: %v, want context.Canceled", err)
		}
	case <-time.After(labkit.Step):
		t.Fatal("poll did not end after Close")
	}
	if n := s.State().Len(); n != 0 {
		t.Errorf("%d objects after Close", n)
	}
}

// TestCompletionEvents: the completions a poll shows also go to the
// event stream, named by the session's CQ.
func TestCompletionEvents(t *testing.T) {
	labkit.Clean(t)
	s := labShell(t)
	mustExec(t, s, "open", "pd", "cq", "mr", "qp", "qp")
	mustExec(t, s, "connect qp1 qp2", "post recv qp2 mr1[0:64]", "post send qp1 mr1[0:4]")
	drain(s, 200*time.Millisecond)
	res, err := s.Exec(context.Background(), "poll cq1 until=recv wait=30s")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(s.Events()) > 0 {
		ev := <-s.Events()
		if ev.Kind == front.EventCompletion && ev.Object == "cq1" {
			got = append(got, ev.Text)
		}
	}
	n := strings.Count(res.Text, "\n  wrid ")
	if len(got) != n || n == 0 || !strings.Contains(strings.Join(got, "\n"), "RECV") {
		t.Errorf("completion events %q for a poll that showed %d:\n%s", got, n, res.Text)
	}
}

// TestCommandQueriesOnlyItsQPs: with twenty QPs on rxe0, a command that
// moves one describes (and so queries) that QP alone; the others stay
// exactly as the last snapshot had them. A poll describes the QPs its
// completions name.
func TestCommandQueriesOnlyItsQPs(t *testing.T) {
	labkit.Clean(t)
	s := labShell(t)
	mustExec(t, s, "open", "pd", "cq", "mr")
	for range 20 {
		mustExec(t, s, "qp")
	}
	var described []string
	s.objectOf = func(e *entry) front.Object {
		described = append(described, e.name)
		return s.object(e)
	}
	before := s.State()
	mustExec(t, s, "next qp7")
	if diff := cmp.Diff([]string{"qp7"}, described); diff != "" {
		t.Errorf("next qp7 described (-want +got):\n%s", diff)
	}
	after := s.State()
	if diff := cmp.Diff(without(before, "qp7"), without(after, "qp7")); diff != "" {
		t.Errorf("the objects next qp7 did not touch changed (-before +after):\n%s", diff)
	}
	if qp, _ := after.Object("qp7"); qp.State != rdma.QPStateInit || len(qp.History) != 1 {
		t.Errorf("qp7 after next: %+v", qp)
	}
	mustExec(t, s, "connect qp1 qp2", "post recv qp2 mr1[0:64]", "post send qp1 mr1[0:4]")
	described = nil
	mustExec(t, s, "poll cq1 until=recv wait=30s")
	// The receive's completion names qp2; the send's (qp1) may come
	// after the poll has what it waits for.
	slices.Sort(described)
	described = slices.Compact(described)
	if got := strings.Join(described, " "); got != "cq1 qp1 qp2" && got != "cq1 qp2" {
		t.Errorf("poll described %q, want cq1 and the QPs of its completions", got)
	}
}
