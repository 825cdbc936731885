package inspect

import (
	"testing"

	"github.com/verbscope/verbscope/rdma"
)

// TestHistoryMarks: the histories' change marks move for the history
// that changed and no other, the whole mark moves with any change and
// stays while none, and a traced modify that takes the place of the
// last entry (the same length) is a change.
func TestHistoryMarks(t *testing.T) {
	init := recorded(t, "rc-init", at(1))
	tr := NewTracker(TrackerConfig{})
	tr.Update(recorded(t, "idle", at(0)))
	tr.Update(init)
	pp, gsi := Key{rdma.KindQP, "rxe0", 17}, Key{rdma.KindQP, "rxe0", 1}
	_, gen1, gens1 := tr.HistoriesMarked()
	if gen1 == 0 || gens1[pp] == 0 || gens1[gsi] == 0 {
		t.Fatalf("marks after two readings: %d %v; want every one non-zero", gen1, gens1)
	}
	tr.Update(clone(init, at(2)))
	if _, gen, gens := tr.HistoriesMarked(); gen != gen1 || gens[pp] != gens1[pp] {
		t.Errorf("a reading with no change moved the marks: %d→%d, %d→%d", gen1, gen, gens1[pp], gens[pp])
	}

	rts := clone(init, at(3))
	qpIndex(t, rts, 17).State = rdma.QPStateRTS
	tr.Update(rts)
	_, gen2, gens2 := tr.HistoriesMarked()
	if gen2 == gen1 || gens2[pp] == gens1[pp] {
		t.Errorf("the pingpong QP's change left its marks: %d %d", gen2, gens2[pp])
	}
	if gens2[gsi] != gens1[gsi] {
		t.Errorf("the GSI QP's mark moved with another QP's change")
	}

	n := len(tr.History(pp))
	tr.Observe(Modify{Time: at(3), Dev: "rxe0", QPN: 17, PID: 169, Comm: "ibv_rc_pingpong",
		From: rdma.QPStateRTR, To: rdma.QPStateRTS, HasState: true, FromKnown: true})
	_, gen3, gens3 := tr.HistoriesMarked()
	if got := len(tr.History(pp)); got != n {
		t.Fatalf("the modify made %d entries of %d; this test wants it to replace the last", got, n)
	}
	if gen3 == gen2 || gens3[pp] == gens2[pp] {
		t.Errorf("a replaced last entry left the marks: %d %d", gen3, gens3[pp])
	}
}
