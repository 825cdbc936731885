package dash

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// The diagnosis stage passes every frame on and gives each reading's
// verdicts with its Seq: a QP in ERR is judged, and once it is gone the
// next reading's verdicts are none.
func TestDiagnosisStage(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	qp := inspect.QP{Port: 1, LQPN: 17, Type: rdma.QPTypeRC, State: rdma.QPStateErr}
	qp.DevName, qp.PID, qp.Comm = "rxe0", 42, "app"
	k := inspect.Key{Kind: rdma.KindQP, Dev: "rxe0", ID: 17}
	frames := []inspect.Frame{
		{Seq: 1, Snapshot: &inspect.Snapshot{Time: t0, QPs: []inspect.QP{qp}},
			Update: inspect.Update{Failed: []inspect.QPAlert{{Key: k, PID: 42, Comm: "app", State: rdma.QPStateErr, Since: t0}}}},
		{Seq: 2, Snapshot: &inspect.Snapshot{Time: t0.Add(time.Second)}},
	}
	in := make(chan inspect.Frame)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, verdicts := diagnosis(ctx, in, nil)
	var causes [][]diagnose.Cause
	for _, f := range frames {
		in <- f
		if got := <-out; got.Seq != f.Seq {
			t.Fatalf("frame %d passed on as %d", f.Seq, got.Seq)
		}
		v := <-verdicts
		if v.Seq != f.Seq || !v.Time.Equal(f.Snapshot.Time) {
			t.Errorf("verdicts of reading %d at %s, want %d at %s", v.Seq, v.Time, f.Seq, f.Snapshot.Time)
		}
		var cs []diagnose.Cause
		for _, x := range v.List {
			cs = append(cs, x.Cause)
		}
		causes = append(causes, cs)
	}
	if diff := cmp.Diff([][]diagnose.Cause{{diagnose.CauseFlushed}, nil}, causes); diff != "" {
		t.Errorf("causes by reading (-want +got):\n%s", diff)
	}
	close(in)
	if _, ok := <-out; ok {
		t.Error("frames still open after the watch closed")
	}
	if _, ok := <-verdicts; ok {
		t.Error("verdicts still open after the watch closed")
	}
}
