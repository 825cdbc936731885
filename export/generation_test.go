package export

import (
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestCountsFollowGenerations: a frame whose QPs are the last one's very
// array, edited, under a new generation is counted again: the counts by
// state go by the generation, not by where the QPs lie.
func TestCountsFollowGenerations(t *testing.T) {
	rts := recorded(t, "rc-rts")
	again := *rts // the same objects, a second later
	again.Time = rts.Time.Add(1e9)
	c := feed(Options{}, rts, &again)
	inErr := func() (n int) {
		for k, v := range c.counts {
			if k.state == rdma.QPStateErr {
				n += v
			}
		}
		return n
	}
	if n := inErr(); n != 0 {
		t.Fatalf("%d QPs counted in ERR before any moved", n)
	}
	edited := again
	edited.Time = again.Time.Add(1e9)
	edited.QPs[0].State = rdma.QPStateErr // in the very array the last frames hold
	edited.MarkChanged(rdma.KindQP)
	c.observe(inspect.Frame{Snapshot: &edited})
	if n := inErr(); n != 1 {
		t.Errorf("%d QPs counted in ERR after one moved under a new generation, want 1", n)
	}
}
