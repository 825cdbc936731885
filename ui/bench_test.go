package ui

import (
	"runtime"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// frame10k is the recorded rc-rts frame with its QPs cloned to 10,000,
// numbered as a busy host's would be.
func frame10k(b *testing.B) inspect.Frame {
	f := recordedFrames(b, "rc-rts")[0]
	s := *f.Snapshot
	base := s.QPs
	s.QPs = make([]inspect.QP, 0, 10000)
	for i := 0; len(s.QPs) < 10000; i++ {
		q := base[i%len(base)]
		q.LQPN = uint32(100 + i)
		s.QPs = append(s.QPs, q)
	}
	s.MarkChanged(rdma.KindQP)
	f.Snapshot = &s
	return f
}

// Building the rows of a 10,000-QP frame: off the UI goroutine (the
// Cmd that receives the frame), reported so its cost is known.
func BenchmarkPrepare10kQPs(b *testing.B) {
	f := frame10k(b)
	p := newResBuilder()
	b.ReportAllocs()
	for b.Loop() {
		p.build(f, front.State{})
	}
}

// Update with a prepared 10,000-QP frame: what the UI goroutine does
// per refresh (swap the rows, keep the selection, re-sort, re-filter).
func BenchmarkUpdate10kQPs(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
	f := frame10k(b)
	// Two readings' rows, built apart: each Update swaps in rows it
	// has not shown.
	ds := []*resData{m.resBuilder.build(f, front.State{}), newResBuilder().build(f, front.State{})}
	send(m, "s", "s", "s") // sorted by a numeric column, as users leave it
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m.Update(resMsg{ds[i%2]})
		i++
	}
}

// An idle host's reading at 10,000 QPs, built from trace (the very same
// objects as the last): its rows built and swapped in, what the
// dashboard does per reading when nothing changed.
func BenchmarkIdleReading10kQPs(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
	f := frame10k(b)
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	send(m, "s", "s", "s")
	f = sameAgain(f, 10*time.Second) // the marks of the first sight faded
	m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	b.ReportAllocs()
	for b.Loop() {
		f = sameAgain(f, time.Second)
		m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	}
}

// View of the QP view at 200x60 with 10,000 QPs: only visible rows are
// drawn.
func BenchmarkView10kQPs(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
	m.Update(resMsg{m.resBuilder.build(frame10k(b), front.State{})})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}

// A key press on the 10,000-QP view (move down one row), the cost the
// user feels per key.
func BenchmarkKey10kQPs(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
	m.Update(resMsg{m.resBuilder.build(frame10k(b), front.State{})})
	down := tea.KeyPressMsg{Code: tea.KeyDown}
	b.ReportAllocs()
	for b.Loop() {
		m.Update(down)
		_ = m.View()
	}
}

// Typing a filter on the recorded host: the cost of one keystroke (the
// filter re-applied, the screen drawn), what a person typing feels.
func BenchmarkFilterKeystroke(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 120, 40, true)
	send(m, "/")
	b.ReportAllocs()
	for b.Loop() {
		typeText(m, "x")
		send(m, "backspace")
		_ = m.View()
	}
}

// The memory a 10,000-QP frame keeps alive once the dashboard shows it
// (live-MB: the heap after a collection, the frame's snapshot included),
// which decides the dashboard's RSS on a busy host.
func BenchmarkLive10kQPs(b *testing.B) {
	var live float64
	for b.Loop() {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
		f := frame10k(b)
		m.Update(resMsg{m.resBuilder.build(f, front.State{})})
		m.Update(resMsg{m.resBuilder.build(f, front.State{})}) // a second frame: rows reused
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		live = float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
		runtime.KeepAlive(m)
	}
	b.ReportMetric(live, "live-MB")
}

// Update of a 10,000-QP frame while an iproute2 filter is on: the
// filter builds each row's fields again from its object.
func BenchmarkUpdate10kQPsFiltered(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 200, 60, true)
	d := m.resBuilder.build(frame10k(b), front.State{})
	send(m, "/")
	typeText(m, "state=RTS type=RC")
	send(m, "enter")
	b.ReportAllocs()
	for b.Loop() {
		m.Update(resMsg{d})
	}
}

// View of the overview (the view the dashboard opens on) with 10,000
// QPs: what each of the renderer's 30 frames a second costs.
func BenchmarkViewOverview10kQPs(b *testing.B) {
	m := fixtureModel(b, "rxe0", "dark", 160, 48, false)
	m.Update(resMsg{m.resBuilder.build(frame10k(b), front.State{})})
	b.ReportAllocs()
	for b.Loop() {
		_ = m.View()
	}
}
