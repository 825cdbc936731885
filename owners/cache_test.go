package owners

import (
	"slices"
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// TestOwnersOfIdleReadings: a reading with the last one's objects
// reuses its processes, read from /proc again every Every
// readings and for a reading with other objects; each frame's growth
// is its own, never piled up on the kept answer.
func TestOwnersOfIdleReadings(t *testing.T) {
	looks := 0
	look := func(tgid int) (sysfsmon.ProcessOwner, error) {
		looks++
		return sysfsmon.ProcessOwner{TGID: tgid, Comm: "app"}, nil
	}
	qps := []inspect.QP{{Object: inspect.Object{DevName: "rxe0", PID: 100, TGID: 100, Comm: "app"}, LQPN: 17}}
	growth := []inspect.Growth{{TGID: 100, Comm: "app", Kind: "mr"}}
	idle := inspect.Snapshot{QPs: qps}
	idle.MarkChanged(rdma.ResourceKinds()...) // as a Watcher's reading: every kind marked
	var c Cache
	for i := range 2 * Every {
		s := idle // the same objects, a reading later
		f := inspect.Frame{Snapshot: &s, Update: inspect.Update{Growing: growth}}
		ps := c.Of(f, look)
		if len(ps) != 1 || ps[0].TGID != 100 || len(ps[0].Growing) != 1 {
			t.Fatalf("reading %d: %+v, want process 100 growing once", i, ps)
		}
	}
	if looks != 2 {
		t.Errorf("%d looks at /proc over %d idle readings, want 2 (one every %d)", looks, 2*Every, Every)
	}
	other := append([]inspect.QP(nil), qps...)
	c.Of(inspect.Frame{Snapshot: &inspect.Snapshot{QPs: other}}, look)
	if looks != 3 {
		t.Errorf("a reading with other objects was not looked up (%d looks)", looks)
	}
}

// TestOwnersFollowGenerations: the processes are read again for objects
// of a new generation, though they lie where they lay.
func TestOwnersFollowGenerations(t *testing.T) {
	var looked []int
	look := func(tgid int) (sysfsmon.ProcessOwner, error) {
		looked = append(looked, tgid)
		return sysfsmon.ProcessOwner{TGID: tgid, Comm: "app"}, nil
	}
	s := &inspect.Snapshot{QPs: []inspect.QP{{Object: inspect.Object{DevName: "rxe0", PID: 100, TGID: 100, Comm: "app"}, LQPN: 17}}}
	s.MarkChanged(rdma.ResourceKinds()...)
	var c Cache
	c.Of(inspect.Frame{Snapshot: s}, look)
	moved := *s
	moved.QPs[0].PID, moved.QPs[0].TGID = 200, 200 // in the very array s holds
	moved.MarkChanged(rdma.KindQP)
	ps := c.Of(inspect.Frame{Snapshot: &moved}, look)
	if len(looked) != 2 || !slices.ContainsFunc(ps, func(p Process) bool { return p.TGID == 200 }) {
		t.Errorf("objects of a new generation held by process 200: looked up %v, got %+v; want 200 looked up and shown", looked, ps)
	}
}
