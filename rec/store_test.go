package rec

import (
	"context"
	"database/sql"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

func TestInfo(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 3}))
	in, err := r.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if in.Host["hostname"] != "lab" || in.Host["kernel"] != "6.12.0" || cmp.Diff([]string{"rxe0"}, in.Devices()) != "" {
		t.Errorf("host %v", in.Host)
	}
	if want := map[string]int{"res": 5, "sys": 5}; !cmp.Equal(in.Readings, want) {
		t.Errorf("readings %v, want %v", in.Readings, want)
	}
	// Keyframes at each source's readings 1 and 4.
	if in.Keyframes != 4 {
		t.Errorf("keyframes %d, want 4", in.Keyframes)
	}
	// QPs 17, 30, 40 and MRs 1-4.
	if in.Objects != 7 {
		t.Errorf("objects %d, want 7", in.Objects)
	}
	if !in.From.Equal(t0) || !in.To.Equal(t0.Add(4*time.Second+100*time.Millisecond)) {
		t.Errorf("span %s..%s", in.From, in.To)
	}
	if in.Alerts != 1 || len(in.Gaps) != 0 {
		t.Errorf("alerts %d gaps %v, want the ERR alert and no gap", in.Alerts, in.Gaps)
	}
}

// An object is written when it appears, changes or vanishes, and on a
// keyframe; the idle QP (40) never changes, so it is written only on
// the keyframes.
func TestChangesNotCopies(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 3}))
	type row struct {
		Seq int64
		Op  string
	}
	rows := func(kind string, num int) []row {
		var out []row
		err := r.each(context.Background(), `SELECT o.seq, o.op FROM objects o JOIN readings r USING (seq) WHERE kind = ? AND num = ? ORDER BY o.id`,
			func(rs *sql.Rows) error {
				var x row
				out = append(out, x)
				return rs.Scan(&out[len(out)-1].Seq, &out[len(out)-1].Op)
			}, kind, num)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// res readings are seq 1, 3, 5, 7, 9 (sys between); keyframes 1 and 7.
	for _, tc := range []struct {
		kind string
		num  int
		want []row
	}{
		{"qp", 40, []row{{1, "appear"}, {7, "key"}}},
		{"qp", 17, []row{{3, "appear"}, {5, "change"}, {7, "change"}, {9, "vanish"}}},
		{"qp", 30, []row{{1, "appear"}, {5, "change"}, {7, "key"}}},
		{"mr", 4, []row{{9, "appear"}}},
	} {
		if diff := cmp.Diff(tc.want, rows(tc.kind, tc.num)); diff != "" {
			t.Errorf("%s %d rows (-want +got):\n%s", tc.kind, tc.num, diff)
		}
	}
}

// Every reading rebuilds to the objects it saw.
func TestSnapshotRebuilds(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 3}))
	ctx := context.Background()
	rs, err := r.Readings(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	want := scenario()
	if len(rs) != len(want) {
		t.Fatalf("%d readings, want %d", len(rs), len(want))
	}
	for i, rd := range rs {
		got, err := r.snapshot(ctx, rd.Seq)
		if err != nil {
			t.Fatal(err)
		}
		sortQPs := func(q []inspect.QP) []inspect.QP {
			q = append([]inspect.QP(nil), q...)
			sort.Slice(q, func(a, b int) bool { return q[a].LQPN < q[b].LQPN })
			return q
		}
		if diff := cmp.Diff(sortQPs(want[i].QPs), sortQPs(got.QPs)); diff != "" {
			t.Errorf("reading %d QPs (-recorded +rebuilt):\n%s", i, diff)
		}
		if diff := cmp.Diff(want[i].MRs, got.MRs); diff != "" {
			t.Errorf("reading %d MRs (-recorded +rebuilt):\n%s", i, diff)
		}
		if !got.Time.Equal(want[i].Time) {
			t.Errorf("reading %d time %s, want %s", i, got.Time, want[i].Time)
		}
	}
	at, err := r.seek(ctx, t0.Add(2500*time.Millisecond))
	if err != nil || at.Seq != rs[2].Seq {
		t.Errorf("Seek(2.5s) = %+v, %v; want reading %d", at, err, rs[2].Seq)
	}
}

// The victim's move to ERR is one transition carrying the traced
// modify; the transitions are written once, not per reading.
func TestTransitions(t *testing.T) {
	r := openT(t, record(t, WriterOptions{}))
	type tr struct {
		QPN   int
		State string
		Gone  bool
		ByPID sql.NullInt64
		Attrs sql.NullString
	}
	var got []tr
	err := r.each(context.Background(), "SELECT qpn, state, gone, by_pid, attrs FROM transitions ORDER BY t, qpn", func(rs *sql.Rows) error {
		var x tr
		if err := rs.Scan(&x.QPN, &x.State, &x.Gone, &x.ByPID, &x.Attrs); err != nil {
			return err
		}
		got = append(got, x)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	by := sql.NullInt64{Int64: 400, Valid: true}
	attrs := sql.NullString{String: `{"qp_state":"ERR"}`, Valid: true}
	want := []tr{
		{QPN: 30, State: "RTS"}, {QPN: 40, State: "RTS"},
		{QPN: 17, State: "INIT"},
		{QPN: 30, State: "ERR", ByPID: by, Attrs: attrs},
		{QPN: 17, State: "RTS"},
		{QPN: 17, State: "RTS", Gone: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("transitions (-want +got):\n%s", diff)
	}
}

// A QP created and moved between two readings has traced transitions
// before any reading shows it: they name the modifier as its owner.
func TestTransitionOfUnseenQP(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "unseen.vsrec", Host{}, WriterOptions{})
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	m := errModify
	m.QPN = 50
	tr.Observe(m)
	s := &inspect.Snapshot{Time: t0}
	if err := w.Frame(ctx, trackedFrame(tr, 1, s)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var pid int
	var comm string
	if err := openT(t, path).db.QueryRow("SELECT pid, comm FROM transitions WHERE qpn = 50").Scan(&pid, &comm); err != nil || pid != 400 || comm != "verbscope" {
		t.Errorf("unseen QP's transition owner %d %q (%v), want the modifier 400 verbscope", pid, comm, err)
	}
}

// A traced modify that reaches the Tracker after the reading that saw its
// state is appended with its own, earlier time; it is still written.
func TestLateModifyWritten(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "late.vsrec", Host{}, WriterOptions{})
	k := inspect.Key{Kind: rdma.KindQP, Dev: "rxe0", ID: 60}
	seen := inspect.StateEvent{Time: t0.Add(2 * time.Second), State: rdma.QPStateErr}
	m := errModify
	m.QPN = 60
	late := inspect.StateEvent{Time: t0.Add(time.Second), State: rdma.QPStateErr, Modify: &m}
	for i, h := range [][]inspect.StateEvent{{seen}, {seen, late}, {seen, late}} {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(i+2) * time.Second)}
		f := inspect.Frame{Seq: uint64(i + 1), Snapshot: s, Update: inspect.Update{Time: s.Time}, History: map[inspect.Key][]inspect.StateEvent{k: h}}
		if err := w.Frame(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	var n, modified int
	if err := openT(t, path).db.QueryRow("SELECT count(*), count(by_pid) FROM transitions WHERE qpn = 60").Scan(&n, &modified); err != nil {
		t.Fatal(err)
	}
	if n != 2 || modified != 1 {
		t.Errorf("%d transitions of QP 60, %d with their modify; want the reading's and the late modify's, each once", n, modified)
	}
}
