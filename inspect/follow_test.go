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
