package ui

import (
	"slices"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// ownFrame is the recorded rc-rts frame with QPs of its own, which the
// tests below edit in place (the recorded frames are shared).
func ownFrame(t *testing.T) inspect.Frame {
	f := recordedFrames(t, "rc-rts")[0]
	s := *f.Snapshot
	s.QPs = slices.Clone(s.QPs)
	s.MarkChanged(rdma.KindQP)
	f.Snapshot = &s
	return f
}

// editedInPlace is f a second later with its first QP moved to ERR in
// the very array f holds, under a new generation: a reader that went by
// where the objects lie would see nothing new.
func editedInPlace(f inspect.Frame) inspect.Frame {
	e := sameAgain(f, time.Second)
	e.Snapshot.QPs[0].State = rdma.QPStateErr
	e.Snapshot.MarkChanged(rdma.KindQP)
	return e
}

// TestTableFollowsRowGenerations: rows of the generation the table
// shows are not looked at again; the same rows, edited, under a new
// generation are.
func TestTableFollowsRowGenerations(t *testing.T) {
	tb := newTable("t", []column{col("a", "a", 0, false)}, nil)
	rows := []tableRow{{Key: "1", Cells: []string{"x"}}}
	tb.SetRows(rowSet{rows, 1})
	rows[0].Cells = []string{"a cell wider than the last"}
	tb.SetRows(rowSet{rows, 1})
	if tb.widths[0] != 1 {
		t.Errorf("rows of the generation shown were measured again: width %d, want 1", tb.widths[0])
	}
	tb.SetRows(rowSet{rows, 2})
	if w := len(rows[0].Cells[0]); tb.widths[0] != w {
		t.Errorf("the same rows under a new generation: width %d, want %d", tb.widths[0], w)
	}
}

// TestBuildFollowsGenerations: once a build reuses the last one's rows
// (the same generations, nothing fading), a frame whose QPs are the very
// same array, edited, under a new generation, builds its rows anew.
func TestBuildFollowsGenerations(t *testing.T) {
	p := newResBuilder()
	f := ownFrame(t)
	p.build(f, front.State{})
	f = sameAgain(f, 10*time.Second) // the marks of the first sight faded
	built := p.build(f, front.State{})
	f = sameAgain(f, time.Second)
	if d := p.build(f, front.State{}); d.rowsGen != built.rowsGen || d.qpStates[rdma.QPStateErr] != 0 {
		t.Fatalf("an idle frame did not reuse the rows (generation %d, last %d), or has a QP in ERR", d.rowsGen, built.rowsGen)
	}
	d := p.build(editedInPlace(f), front.State{})
	if d.rowsGen == built.rowsGen || d.qpStates[rdma.QPStateErr] != 1 || d.rows[rdma.KindQP][0].Mark != markError {
		t.Errorf("a QP moved to ERR under a new generation: rows generation %d (last %d), %d QPs in ERR, first row marked %v; want new rows with it in ERR",
			d.rowsGen, built.rowsGen, d.qpStates[rdma.QPStateErr], d.rows[rdma.KindQP][0].Mark)
	}
}

// TestCountStatesFollowsGenerations: the overview counts the QPs again
// when their generation changes, though they lie where they lay.
func TestCountStatesFollowsGenerations(t *testing.T) {
	v := &overviewView{c: &common{}}
	f := ownFrame(t)
	_, byDev := v.countStates(f.Snapshot)
	dev := f.Snapshot.QPs[0].DevName
	if byDev[dev][rdma.QPStateErr] != 0 {
		t.Fatalf("the recording has QPs in ERR: %v", byDev)
	}
	if _, byDev = v.countStates(editedInPlace(f).Snapshot); byDev[dev][rdma.QPStateErr] != 1 {
		t.Errorf("a QP moved to ERR under a new generation: counts %v, want one in ERR", byDev[dev])
	}
}
