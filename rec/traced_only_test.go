package rec

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestTracedOnlyLifetime: a QP created, moved and destroyed between two
// readings (pid 500's QP 41: its modifies and its destroy traced, no
// reading showing it) has a lifetime from its first modify to its
// destroy, marked traced only, and a slice in the Perfetto export; QP
// 40, which readings showed, keeps the readings' lifetime alone; both
// ends are written with their owner.
func TestTracedOnlyLifetime(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "short.vsrec", Host{Hostname: "lab"}, WriterOptions{})
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	read := func(seq uint64, at time.Duration, qps ...inspect.QP) {
		t.Helper()
		s := &inspect.Snapshot{Time: t0.Add(at), QPs: qps}
		if err := w.Frame(ctx, trackedFrame(tr, seq, s)); err != nil {
			t.Fatal(err)
		}
	}
	modify := func(qpn uint32, at time.Duration, from, to rdma.QPState) {
		tr.Observe(inspect.Modify{Time: t0.Add(at), Dev: "rxe0", QPN: qpn, PID: 500, Comm: "shortlived",
			From: from, FromKnown: true, To: to, HasState: true, Mask: []string{"IB_QP_STATE"}})
	}
	q40 := qp(40, 500, "shortlived", rdma.QPStateInit, 0, 0)
	read(1, 0, q40)
	modify(41, 200*time.Millisecond, rdma.QPStateReset, rdma.QPStateInit)
	modify(41, 300*time.Millisecond, rdma.QPStateInit, rdma.QPStateRTR)
	tr.ObserveGone(inspect.Key{Kind: rdma.KindQP, Dev: "rxe0", ID: 41}, t0.Add(400*time.Millisecond))
	read(2, time.Second, q40)
	read(3, 2*time.Second, q40)
	read(4, 3*time.Second)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := openT(t, path)
	lts, err := r.Lifetimes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var qps []Lifetime
	for _, l := range lts {
		if l.Kind == "qp" {
			qps = append(qps, l)
		}
	}
	want := []Lifetime{
		{Kind: "qp", Dev: "rxe0", Num: 40, PID: 500, Comm: "shortlived", Type: "RC", State: "INIT", Start: t0, End: t0.Add(3 * time.Second), Ended: true},
		{Kind: "qp", Dev: "rxe0", Num: 41, PID: 500, Comm: "shortlived", State: "RTR", Start: t0.Add(200 * time.Millisecond),
			End: t0.Add(400 * time.Millisecond), Ended: true, TracedOnly: true},
	}
	if d := cmp.Diff(want, qps); d != "" {
		t.Errorf("QP lifetimes (-want +got):\n%s", d)
	}
	// Each QP's end is written with its owner: QP 40's, seen gone by a
	// reading, and QP 41's, by its traced destroy.
	trs, err := r.Transitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ends := 0
	for _, x := range trs {
		if x.Gone {
			ends++
			if x.PID != 500 || x.Comm != "shortlived" {
				t.Errorf("QP %d's end written with pid %d (%q), want its owner, 500", x.QPN, x.PID, x.Comm)
			}
		}
	}
	if ends != 2 {
		t.Errorf("%d ends among the transitions, want QP 40's and QP 41's", ends)
	}
	var b strings.Builder
	if err := r.Perfetto(ctx, &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"name":"rxe0 QP 41","cat":"qp","ph":"b"`) {
		t.Errorf("no slice of the traced-only QP 41 in the Perfetto export:\n%s", b.String())
	}
}
