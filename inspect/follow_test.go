package inspect

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// followFrames feeds a Tracker the snapshots (one QP list each, by lqpn
// and pid) and returns its frames, numbered from 1.
func followFrames(t0 time.Time, snaps ...[][2]uint32) []Frame {
	tr := NewTracker(TrackerConfig{})
	var frames []Frame
	for i, qps := range snaps {
		s := &Snapshot{Time: t0.Add(time.Duration(i) * time.Second)}
		for _, q := range qps {
			qp := QP{Object: Object{DevName: "rxe0", PID: q[1], Comm: "app"}, LQPN: q[0], Type: rdma.QPTypeRC, State: rdma.QPStateRTS}
			qp.Attrs.Add(AttrResPID)
			s.QPs = append(s.QPs, qp)
		}
		frames = append(frames, Frame{Seq: uint64(i + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()})
	}
	return frames
}

// TestQPFollowerComings: appeared and vanished come from the Tracker's
// Update; a number taken over by another process is the old QP gone and
// a new one come; after missed frames the rows tell what changed.
func TestQPFollowerComings(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	frames := followFrames(t0,
		[][2]uint32{{5, 10}, {6, 10}},
		[][2]uint32{{5, 10}, {7, 10}},
		[][2]uint32{{5, 11}, {7, 10}},
		[][2]uint32{{5, 11}, {8, 10}},
		[][2]uint32{{9, 10}})
	type line struct {
		Event FollowEvent
		ID    uint32
		PID   string
	}
	tests := []struct {
		name  string
		frame []int // the frames the follower sees, by index
		want  []line
	}{
		{"each frame", []int{0, 1, 2}, []line{
			{FollowPresent, 5, "10"}, {FollowPresent, 6, "10"},
			{FollowVanished, 6, "10"}, {FollowAppeared, 7, "10"},
			{FollowVanished, 5, "10"}, {FollowAppeared, 5, "11"},
		}},
		{"a gap", []int{0, 3, 4}, []line{
			{FollowPresent, 5, "10"}, {FollowPresent, 6, "10"},
			{FollowVanished, 6, "10"}, {FollowAppeared, 8, "10"},
			{FollowVanished, 5, "11"}, {FollowVanished, 8, "10"}, {FollowAppeared, 9, "10"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := NewQPFollower(nil)
			var got []line
			for _, i := range tc.frame {
				for _, l := range f.Next(frames[i]) {
					pid, _ := l.Row.Get("pid")
					got = append(got, line{l.Event, l.Key.ID, pid.Text})
				}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("lines (-want +got):\n%s", d)
			}
		})
	}
}

func TestModifyText(t *testing.T) {
	m := &Modify{PID: 812, Comm: "rc\x1bping", Attrs: []ModifyAttr{{"qp_state", "RTR"}, {"path_mtu", "1024"}, {"dest_qp_num", "18"}}}
	if got, want := m.SetText(), "path_mtu=1024 dest_qp_num=18"; got != want {
		t.Errorf("SetText: %q, want %q", got, want)
	}
	if got := (&Modify{Attrs: []ModifyAttr{{"qp_state", "RTR"}}}).SetText(); got != "" {
		t.Errorf("SetText of a state alone: %q, want nothing", got)
	}
	if got, want := m.Process(), "rc\\x1bping[812]"; got != want {
		t.Errorf("Process: %q, want %q", got, want)
	}
}

// TestModifyJSON: with values a modify carries its attributes and
// rdma.Check's finding; without, neither, and the rest stays.
func TestModifyJSON(t *testing.T) {
	m := &Modify{PID: 9, Comm: "app", Mask: []string{"IB_QP_STATE", "IB_QP_QKEY"}, AttrsJSON: []byte(`{"qp_state":"RTR","qkey":291}`),
		Ret: -22, Errno: "EINVAL", Check: "qkey 0x123 is ..."}
	for _, tc := range []struct {
		values bool
		want   string
	}{
		{true, `{"pid":9,"comm":"app","mask":["IB_QP_STATE","IB_QP_QKEY"],"attrs":{"qp_state":"RTR","qkey":291},"ret":-22,"errno":"EINVAL","check":"qkey 0x123 is ..."}`},
		{false, `{"pid":9,"comm":"app","mask":["IB_QP_STATE","IB_QP_QKEY"],"ret":-22,"errno":"EINVAL"}`},
	} {
		if got := string(m.AppendJSON(nil, tc.values)); got != tc.want {
			t.Errorf("values %v:\n got %s\nwant %s", tc.values, got, tc.want)
		}
	}
}
