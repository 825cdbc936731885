package rec

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestLateModifyOneRow: a reading sees a QP move to ERR before trace's
// modify reaches the Tracker; the modify then takes the reading's entry's
// place in the history, and the recording keeps one row for the move,
// with the modify's time and who made it, not two.
func TestLateModifyOneRow(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "late.vsrec")
	w, err := Create(ctx, path, Host{}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	seq := uint64(0)
	write := func(at time.Duration, st rdma.QPState) {
		t.Helper()
		seq++
		s := &inspect.Snapshot{Time: t0.Add(at), QPs: []inspect.QP{qp(40, 500, "verbscope", st, 0, 0)}}
		if err := w.Frame(ctx, inspect.Frame{Seq: seq, Snapshot: s, Update: tr.Update(s), History: tr.Histories()}); err != nil {
			t.Fatal(err)
		}
	}
	write(0, rdma.QPStateRTS)
	write(time.Second, rdma.QPStateErr) // the reading saw ERR first
	tr.Observe(inspect.Modify{Time: t0.Add(900 * time.Millisecond), Dev: "rxe0", QPN: 40, PID: 500, Comm: "verbscope",
		From: rdma.QPStateRTS, FromKnown: true, To: rdma.QPStateErr, HasState: true, Mask: []string{"IB_QP_STATE"}})
	write(2*time.Second, rdma.QPStateErr)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ts, err := openT(t, path).Transitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var errs []Transition
	for _, x := range ts {
		if x.QPN == 40 && x.State == "ERR" {
			errs = append(errs, x)
		}
	}
	if len(errs) != 1 {
		t.Fatalf("%d rows for the move to ERR, want 1: %+v", len(errs), errs)
	}
	if e := errs[0]; e.ByComm != "verbscope" || e.Mask != "IB_QP_STATE" || !e.Time.Equal(t0.Add(900*time.Millisecond)) {
		t.Errorf("the move to ERR %+v: want the modify's time (0.9 s), by verbscope, IB_QP_STATE", e)
	}
}
