package rec

import (
	"context"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// lateRun records QP 40 (pid 500) through the readings and modifies
// script makes, with the recorder's Tracker, and returns the rows the
// file holds for it.
func lateRun(t *testing.T, script func(read func(at time.Duration, st rdma.QPState), observe func(at time.Duration, from, to rdma.QPState))) []Transition {
	t.Helper()
	ctx := context.Background()
	w, path := createT(t, "late.vsrec", Host{}, WriterOptions{})
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	seq := uint64(0)
	read := func(at time.Duration, st rdma.QPState) {
		t.Helper()
		seq++
		s := &inspect.Snapshot{Time: t0.Add(at)}
		if st != rdma.QPStateUnknown {
			s.QPs = []inspect.QP{qp(40, 500, "verbscope", st, 0, 0)}
		}
		if err := w.Frame(ctx, trackedFrame(tr, seq, s)); err != nil {
			t.Fatal(err)
		}
	}
	observe := func(at time.Duration, from, to rdma.QPState) {
		tr.Observe(inspect.Modify{Time: t0.Add(at), Dev: "rxe0", QPN: 40, PID: 500, Comm: "verbscope",
			From: from, FromKnown: true, To: to, HasState: true, Mask: []string{"IB_QP_STATE"}})
	}
	script(read, observe)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ts, err := openT(t, path).Transitions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []Transition
	for _, x := range ts {
		if x.QPN == 40 {
			rows = append(rows, x)
		}
	}
	return rows
}

// intoErr picks the rows of moves to ERR.
func intoErr(rows []Transition) (errs []Transition) {
	for _, x := range rows {
		if x.State == "ERR" {
			errs = append(errs, x)
		}
	}
	return errs
}

// TestLateModifyOneRow: a reading sees a QP move to ERR before trace's
// modify reaches the Tracker; the modify then takes the reading's entry's
// place in the history, and the recording keeps one row for the move,
// with the modify's time and who made it, not two.
func TestLateModifyOneRow(t *testing.T) {
	rows := lateRun(t, func(read func(time.Duration, rdma.QPState), observe func(time.Duration, rdma.QPState, rdma.QPState)) {
		read(0, rdma.QPStateRTS)
		read(time.Second, rdma.QPStateErr) // the reading saw ERR first
		observe(900*time.Millisecond, rdma.QPStateRTS, rdma.QPStateErr)
		read(2*time.Second, rdma.QPStateErr)
	})
	errs := intoErr(rows)
	if len(errs) != 1 {
		t.Fatalf("%d rows for the move to ERR, want 1: %+v", len(errs), errs)
	}
	if e := errs[0]; e.ByComm != "verbscope" || e.Mask != "IB_QP_STATE" || !e.Time.Equal(t0.Add(900*time.Millisecond)) {
		t.Errorf("the move to ERR %+v: want the modify's time (0.9 s), by verbscope, IB_QP_STATE", e)
	}
}

// TestLateModifiesAfterFirstSight: the verbs shell creates a QP and
// moves it to INIT and ERR between two readings (CI's failure of
// TestRecordSessionLab at a47e614); the first reading that shows it sees
// ERR, trace's two modifies come after it. The file holds the move to
// INIT and one move to ERR, both the modifies', in order.
func TestLateModifiesAfterFirstSight(t *testing.T) {
	rows := lateRun(t, func(read func(time.Duration, rdma.QPState), observe func(time.Duration, rdma.QPState, rdma.QPState)) {
		read(0, rdma.QPStateUnknown) // no QP 40 yet
		read(time.Second, rdma.QPStateErr)
		observe(800*time.Millisecond, rdma.QPStateReset, rdma.QPStateInit)
		observe(810*time.Millisecond, rdma.QPStateInit, rdma.QPStateErr)
		read(2*time.Second, rdma.QPStateErr)
	})
	var got []string
	for _, x := range rows {
		got = append(got, x.State+" by "+x.ByComm)
	}
	if len(rows) != 2 || rows[0].State != "INIT" || rows[1].State != "ERR" || rows[0].ByComm != "verbscope" || rows[1].ByComm != "verbscope" {
		t.Fatalf("rows %q, want INIT then ERR, each by verbscope's modify", got)
	}
	if !rows[1].Time.Equal(t0.Add(810 * time.Millisecond)) {
		t.Errorf("the move to ERR at %v, want the modify's time", rows[1].Time)
	}
}
