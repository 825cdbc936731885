package ui

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// sameAgain is f a second later with the very same objects, as a
// reading built from trace's events on an idle host is.
func sameAgain(f inspect.Frame, d time.Duration) inspect.Frame {
	s := *f.Snapshot
	s.Time = s.Time.Add(d)
	f.Snapshot, f.Seq, f.Update = &s, f.Seq+1, inspect.Update{}
	return f
}

// copied is f with every object read again: equal, not the same (new
// generations).
func copied(f inspect.Frame) inspect.Frame {
	s := *f.Snapshot
	s.QPs = append([]inspect.QP(nil), s.QPs...)
	s.CQs = append([]inspect.CQ(nil), s.CQs...)
	s.MRs = append([]inspect.MR(nil), s.MRs...)
	s.PDs = append([]inspect.PD(nil), s.PDs...)
	s.Contexts = append([]inspect.Context(nil), s.Contexts...)
	s.MarkChanged(rdma.ResourceKinds()...)
	f.Snapshot = &s
	return f
}

// TestBuildReusesRowsOfSameObjects: frames with the very same objects
// as the last build's reuse its rows once no mark fades with time, and
// every build is what a build from equal but separately read objects
// gives: the new marks of a QP that appeared fade after markFor, and a
// vanished QP's row goes after keepGone, either way.
func TestBuildReusesRowsOfSameObjects(t *testing.T) {
	fs := recordedFrames(t, "idle", "rc-init", "rc-rts")
	seq := []inspect.Frame{fs[0], fs[1]}
	last := fs[1]
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second} {
		seq = append(seq, sameAgain(last, d))
	}
	seq = append(seq, fs[2]) // rc-init's QP vanished, rc-rts's appeared
	last = fs[2]
	for _, d := range []time.Duration{time.Second, 4 * time.Second, 6 * time.Second, 7 * time.Second, 8 * time.Second} {
		seq = append(seq, sameAgain(last, d))
	}
	fast, slow := newResBuilder(), newResBuilder()
	reused := 0
	for i, f := range seq {
		before := fast.prev.rows
		a := fast.build(f, front.State{})
		b := slow.build(copied(f), front.State{})
		if diff := cmp.Diff(shownRows(b), shownRows(a)); diff != "" || !reflect.DeepEqual(a.qpStates, b.qpStates) {
			t.Fatalf("frame %d: the rows built from the same objects differ from those of equal objects (-equal +same):\n%s", i, diff)
		}
		if before != nil && reflect.ValueOf(a.rows).Pointer() == reflect.ValueOf(before).Pointer() {
			reused++
		}
	}
	// The recorded frames are a second apart, the copies later: rc-init's
	// QP is marked new for markFor, so the copy at +5 s builds (nothing
	// fades any more) and the one at +6 s reuses. rc-rts's frame comes at
	// an earlier time, a step back as in a replay, which starts the marks
	// afresh: its objects are new in the copy at +1 s, and the copies at
	// +6, +7 and +8 s reuse the one at +4 s.
	if reused != 4 {
		t.Errorf("%d builds reused the last one's rows, want 4", reused)
	}
}

// shownRows is what the rows show: keys, cells, marks and whose.
func shownRows(d *resData) map[inspect.Kind][]string {
	out := map[inspect.Kind][]string{}
	for k, rs := range d.rows {
		for _, r := range rs {
			out[k] = append(out[k], fmt.Sprint(r.Key, r.Cells, r.Mark, r.Ours, r.OursName, r.res != nil && r.res.key.String() == r.Key))
		}
	}
	return out
}
