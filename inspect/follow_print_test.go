package inspect

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// TestFollowUnseenQP: a QP that lived between two snapshots shows only
// through its traced modifies, and a comm filter still finds them.
func TestFollowUnseenQP(t *testing.T) {
	flt, err := view.ParseCommandWords("qp", []string{"comm", "ibv_rc_pingpong"})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	tr := NewTracker(TrackerConfig{})
	f := NewQPFollower(flt)
	empty := func(s int) Frame {
		sn := &Snapshot{Time: t0.Add(time.Duration(s) * time.Second)}
		return Frame{Seq: uint64(s + 1), Snapshot: sn, Update: tr.Update(sn), History: tr.Histories()}
	}
	f.Next(empty(0))
	for _, c := range []string{"ibv_rc_pingpong", "other"} {
		tr.Observe(Modify{Time: t0.Add(time.Second / 2), Dev: "rxe0", QPN: map[string]uint32{"ibv_rc_pingpong": 18, "other": 19}[c], PID: 9, Comm: c,
			From: rdma.QPStateReset, To: rdma.QPStateInit, HasState: true, Mask: []string{"IB_QP_STATE"}, Attrs: []ModifyAttr{{Name: "qp_state", Value: "INIT"}}})
	}
	var got []string
	for _, l := range f.Next(empty(1)) {
		got = append(got, l.View().Text())
	}
	want := []string{"12:00:00.500000 rxe0 lqpn 18 RESET→INIT by ibv_rc_pingpong[9]"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

// TestFollow: a failed first reading is the error, a later one is
// retried, an empty first reading is told, and count stops after that
// many changes (the QPs present at first are not changes).
func TestFollow(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	failed := Frame{Err: errors.New("dump failed")}
	for _, tc := range []struct {
		name   string
		frames []Frame
		count  int
		want   []string // the hooks' calls, in order
		err    bool
	}{
		{name: "first fails", frames: []Frame{failed}, err: true},
		{name: "empty, then two", frames: followFrames(t0, nil, [][2]uint32{{17, 1}, {18, 1}}),
			want: []string{"empty", "appeared 17", "appeared 18"}},
		{name: "count", frames: followFrames(t0, [][2]uint32{{5, 1}}, [][2]uint32{{5, 1}, {17, 1}, {18, 1}}), count: 1,
			want: []string{"present 5", "appeared 17"}},
		{name: "retry", frames: append(followFrames(t0, [][2]uint32{{5, 1}}), failed),
			want: []string{"present 5", "retry dump failed"}},
	} {
		ch := make(chan Frame, len(tc.frames))
		for _, fr := range tc.frames {
			ch <- fr
		}
		close(ch)
		var got []string
		err := NewQPFollower(nil).Follow(ch, tc.count, FollowHooks{
			Line: func(l FollowLine) error {
				got = append(got, string(l.Event)+" "+strconv.FormatUint(uint64(l.Key.ID), 10))
				return nil
			},
			Empty: func() { got = append(got, "empty") },
			Retry: func(err error) { got = append(got, "retry "+err.Error()) },
		})
		if (err != nil) != tc.err {
			t.Errorf("%s: error %v, want one: %v", tc.name, err, tc.err)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, d)
		}
	}
}
