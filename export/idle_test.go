package export

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestIdleFrameKeepsCounts: a frame with the last one's very QPs (an
// idle host's reading, inspect.Snapshot.SameObjects) keeps the counts
// by state that a frame with equal copies of them recounts, through a
// move to ERR and back to the same objects.
func TestIdleFrameKeepsCounts(t *testing.T) {
	rts := recorded(t, "rc-rts")
	errd := withState(rts, 18, rdma.QPStateErr)
	// again is s one second later with the same objects; copied, with
	// equal copies of its QPs, marked as read again.
	again := func(s *inspect.Snapshot) *inspect.Snapshot {
		c := *s
		c.Time = s.Time.Add(1e9)
		return &c
	}
	copied := func(s *inspect.Snapshot) *inspect.Snapshot {
		c := again(s)
		c.QPs = append([]inspect.QP(nil), s.QPs...)
		c.MarkChanged(rdma.KindQP)
		return c
	}
	same := []*inspect.Snapshot{rts, again(rts), errd, again(errd), again(errd)}
	var copies []*inspect.Snapshot
	for _, s := range same {
		copies = append(copies, copied(s))
	}
	if !same[1].SameObjects(same[0]) || copies[1].SameObjects(copies[0]) {
		t.Fatal("the test's snapshots are not what it needs")
	}
	for i := range same {
		a, b := feed(Options{}, same[:i+1]...), feed(Options{}, copies[:i+1]...)
		if d := cmp.Diff(b.counts, a.counts, cmp.AllowUnexported(stateKey{}, group{})); d != "" {
			t.Errorf("after %d frames, counts (-copies +same objects):\n%s", i+1, d)
		}
		if d := cmp.Diff(b.stuck, a.stuck, cmp.AllowUnexported(group{})); d != "" {
			t.Errorf("after %d frames, stuck (-copies +same objects):\n%s", i+1, d)
		}
	}
	inErr := 0
	for k, n := range feed(Options{}, same...).counts {
		if k.state == rdma.QPStateErr {
			inErr += n
		}
	}
	if inErr != 1 {
		t.Errorf("%d QPs counted in ERR after the move, want 1", inErr)
	}
}
