package rec

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestSameObjectsWriteNothing: a reading with the very same objects as
// the last (an idle host's, built from trace's events) writes no object
// row, as a reading of equal objects does not; a change after it is
// written.
func TestSameObjectsWriteNothing(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	qps := []inspect.QP{
		{Object: inspect.Object{DevName: "rxe0", PID: 7, Comm: "holder"}, Port: 1, LQPN: 17, Type: rdma.QPTypeRC, State: rdma.QPStateInit},
		{Object: inspect.Object{DevName: "rxe0", PID: 7, Comm: "holder"}, Port: 1, LQPN: 18, Type: rdma.QPTypeRC, State: rdma.QPStateInit},
	}
	s1 := &inspect.Snapshot{Time: t0, QPs: qps}
	// As a Watcher's reading: every kind marked.
	s1.MarkChanged(rdma.ResourceKinds()...)
	s2 := *s1 // the same objects, a second later
	s2.Time = t0.Add(time.Second)
	s3 := s2 // equal objects, read again
	s3.Time, s3.QPs = t0.Add(2*time.Second), append([]inspect.QP(nil), qps...)
	s3.MarkChanged(rdma.KindQP)
	s4 := s3 // one of them moved to ERR
	s4.Time, s4.QPs = t0.Add(3*time.Second), append([]inspect.QP(nil), qps...)
	s4.QPs[1].State = rdma.QPStateErr
	s4.MarkChanged(rdma.KindQP)
	got := objectRows(t, s1, &s2, &s3, &s4)
	want := []string{"00 appear 0", "00 appear 1", "03 change 1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("object rows (-want +got):\n%s", diff)
	}
}

// TestWriteGoesByGenerations: the writer compares a reading's objects
// with the last ones written when its generations are new, whatever
// slices hold them. The second reading breaks the contract on purpose
// (a QP changed under the last reading's generations) to show that the
// writer trusts the generations: the change is written by the third,
// the second's very array under a new generation.
func TestWriteGoesByGenerations(t *testing.T) {
	qps := []inspect.QP{
		{Object: inspect.Object{DevName: "rxe0", PID: 7, Comm: "holder"}, Port: 1, LQPN: 17, Type: rdma.QPTypeRC, State: rdma.QPStateInit},
		{Object: inspect.Object{DevName: "rxe0", PID: 7, Comm: "holder"}, Port: 1, LQPN: 18, Type: rdma.QPTypeRC, State: rdma.QPStateInit},
	}
	s1 := &inspect.Snapshot{Time: t0, QPs: qps}
	s1.MarkChanged(rdma.ResourceKinds()...)
	s2 := *s1
	s2.Time, s2.QPs = t0.Add(time.Second), append([]inspect.QP(nil), qps...)
	s2.QPs[1].State = rdma.QPStateErr
	s3 := s2
	s3.Time = t0.Add(2 * time.Second)
	s3.MarkChanged(rdma.KindQP)
	want := []string{"00 appear 0", "00 appear 1", "02 change 1"}
	if diff := cmp.Diff(want, objectRows(t, s1, &s2, &s3)); diff != "" {
		t.Errorf("object rows (-want +got):\n%s", diff)
	}
}

// objectRows records snaps and lists the object rows written: each
// one's second, op and QP (0 for 17).
func objectRows(t *testing.T, snaps ...*inspect.Snapshot) []string {
	t.Helper()
	path := recordSnaps(t, "same.vsrec", Host{Hostname: "lab", Devices: []string{"rxe0"}, Interval: time.Second}, WriterOptions{KeyEvery: 100}, snaps...)
	r := openT(t, path)
	var got []string
	err := r.each(context.Background(), `SELECT r.t, o.op, o.num FROM objects o JOIN readings r USING (seq) ORDER BY o.id`, func(rs *sql.Rows) error {
		var at int64
		var op string
		var num int
		if err := rs.Scan(&at, &op, &num); err != nil {
			return err
		}
		got = append(got, time.Unix(0, at).UTC().Format("05")+" "+op+" "+string(rune('0'+num-17)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
