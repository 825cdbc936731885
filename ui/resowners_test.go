package ui

import (
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// TestOwnersOfIdleReadings: a reading with the last one's objects
// reuses its processes, read from /proc again every ownersEvery
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
	var c ownersCache
	for i := range 2 * ownersEvery {
		s := idle // the same objects, a reading later
		f := inspect.Frame{Snapshot: &s, Update: inspect.Update{Growing: growth}}
		ps := c.ownersOf(f, look)
		if len(ps) != 1 || ps[0].TGID != 100 || len(ps[0].Growing) != 1 {
			t.Fatalf("reading %d: %+v, want process 100 growing once", i, ps)
		}
	}
	if looks != 2 {
		t.Errorf("%d looks at /proc over %d idle readings, want 2 (one every %d)", looks, 2*ownersEvery, ownersEvery)
	}
	other := append([]inspect.QP(nil), qps...)
	c.ownersOf(inspect.Frame{Snapshot: &inspect.Snapshot{QPs: other}}, look)
	if looks != 3 {
		t.Errorf("a reading with other objects was not looked up (%d looks)", looks)
	}
}
