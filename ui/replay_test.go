package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/view"
)

// fakeReplay records the calls the keys make.
type fakeReplay struct {
	calls []string
	pos   ReplayPosition
	match func(inspect.Kind, view.Row) bool // the last Event's
}

func (f *fakeReplay) Step(n int) { f.calls = append(f.calls, fmt.Sprintf("step %d", n)) }
func (f *fakeReplay) Event(dir int, match func(inspect.Kind, view.Row) bool) {
	f.calls, f.match = append(f.calls, fmt.Sprintf("event %d", dir)), match
}
func (f *fakeReplay) TogglePlay()              { f.calls = append(f.calls, "play") }
func (f *fakeReplay) Faster()                  { f.calls = append(f.calls, "faster") }
func (f *fakeReplay) Slower()                  { f.calls = append(f.calls, "slower") }
func (f *fakeReplay) Position() ReplayPosition { return f.pos }
func (f *fakeReplay) Resume()                  { f.calls = append(f.calls, "resume") }
func (f *fakeReplay) SeekTo(text string) error {
	if text == "nonsense" {
		return fmt.Errorf("%q: give start, end, -3m", text)
	}
	f.calls = append(f.calls, "seek "+text)
	return nil
}

func TestReplayKeysAndHeader(t *testing.T) {
	r := &fakeReplay{pos: ReplayPosition{Time: time.Date(2026, 12, 1, 2, 47, 5, 0, time.Local), Index: 2, Len: 10, Speed: 1}}
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false, func(s *Sources) { s.Replay = r })
	if out := screen(m); !strings.Contains(out, "lab · kernel 6.1.0-57-amd64 · rdma-core 44.0-2 · REPLAY 2026-12-01 02:47:05 (3/10) paused (space plays)") {
		t.Errorf("the header should say REPLAY, the host and the time shown:\n%s", out)
	}
	send(m, "[", "]", "{", "}")
	m.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	send(m, "<", ">")
	// t asks for a time; what it cannot read is said, and nothing moves.
	send(m, "t")
	if out := screen(m); !strings.Contains(out, "time ") || !strings.Contains(out, "enter jumps") {
		t.Errorf("t should ask for a time:\n%s", out)
	}
	send(m, "-", "3", "m", "enter", "t", "n", "o", "n", "s", "e", "n", "s", "e", "enter")
	if out := screen(m); !strings.Contains(out, `t: "nonsense": give start, end, -3m`) {
		t.Errorf("a time t cannot read should be said:\n%s", out)
	}
	want := []string{"step -1", "step 1", "event -1", "event 1", "play", "slower", "faster", "seek -3m"}
	if diff := cmp.Diff(want, r.calls); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	r.pos.Playing, r.pos.Speed = true, 8
	if out := screen(m); !strings.Contains(out, "(3/10) ▶ 8×") {
		t.Errorf("the header should say it plays at 8×:\n%s", out)
	}
	send(m, "?")
	for _, b := range m.keys.replay.list(false) {
		if out := screen(m); !strings.Contains(out, b.Help().Desc) {
			t.Errorf("help lacks %q (%s)", b.Help().Desc, b.Help().Key)
		}
	}
}

// With a filter on the QP view, `}` asks for the next event of a QP the
// filter takes; without one, for any event.
func TestReplayEventFollowsFilter(t *testing.T) {
	r := &fakeReplay{pos: ReplayPosition{Time: time.Date(2026, 12, 1, 2, 47, 5, 0, time.Local), Len: 10, Speed: 1}}
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false, func(s *Sources) { s.Replay = r })
	send(m, "}")
	if r.match != nil {
		t.Fatal("} without a filter should ask for any event")
	}
	send(m, "/", "s", "t", "a", "t", "e", "=", "E", "R", "R", "enter", "}")
	if r.match == nil {
		t.Fatal("} with a filter should ask for the events of what it takes")
	}
	qp := func(st rdma.QPState) view.Row {
		return (&inspect.QP{Object: inspect.Object{DevName: "rxe0"}, LQPN: 30, State: st}).Row(false)
	}
	if !r.match(rdma.KindQP, qp(rdma.QPStateErr)) || r.match(rdma.KindQP, qp(rdma.QPStateRTS)) || r.match(rdma.KindMR, qp(rdma.QPStateErr)) {
		t.Error("the match should take a QP in ERR and nothing else")
	}
}

// Live, the playback keys are not listed and `>` still sorts.
func TestNoReplayKeysLive(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false)
	send(m, ">")
	if !strings.Contains(screen(m), "sort link") {
		t.Errorf("> should sort when live:\n%s", screen(m))
	}
	send(m, "?")
	if strings.Contains(screen(m), "one reading back") {
		t.Errorf("live help lists the playback keys:\n%s", screen(m))
	}
}

// Stepping back in a replay starts the change marks afresh: nothing is
// "changed" since a frame that comes later.
func TestStepBackClearsMarks(t *testing.T) {
	fs := recordedFrames(t, "idle", "rc-init", "rc-rts")
	p := newResBuilder()
	for _, f := range fs {
		p.build(f, front.State{})
	}
	d := p.build(fs[1], front.State{})
	for kind, rows := range d.rows {
		for _, r := range rows {
			if r.Mark == markChanged || r.Mark == markNew {
				t.Errorf("%s row %v marked %v after stepping back", kind, r.Cells, r.Mark)
			}
		}
	}
}

// The live dashboard's rewind: live, the header says [ rewinds, `[`
// goes back and `>` still sorts; behind live, the header says how far,
// every playback key steers, and esc returns to live (after closing a
// detail first); ? lists "back to live".
func TestRewindKeysAndHeader(t *testing.T) {
	r := &fakeReplay{pos: ReplayPosition{Rewind: true, Live: true, Speed: 1}}
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false, func(s *Sources) { s.Replay = r })
	if out := screen(m); !strings.Contains(out, "every 1s · [ rewinds") || strings.Contains(out, "REWIND") {
		t.Errorf("live, the header should offer the rewind:\n%s", out)
	}
	send(m, ">")
	if !strings.Contains(screen(m), "sort link") {
		t.Errorf("live, > should sort:\n%s", screen(m))
	}
	send(m, "]", "[")
	r.pos = ReplayPosition{Rewind: true, Time: time.Date(2026, 12, 1, 2, 47, 5, 0, time.Local), Index: 7, Len: 9, Speed: 1, Behind: 42 * time.Second}
	if out := screen(m); !strings.Contains(out, "REWIND 42s behind live 2026-12-01 02:47:05 (8/9) paused") {
		t.Errorf("behind live, the header should say how far:\n%s", out)
	}
	send(m, ">", "enter", "esc", "esc")
	want := []string{"step -1", "faster", "resume"}
	if d := cmp.Diff(want, r.calls); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	send(m, "?")
	if !strings.Contains(screen(m), "back to live") {
		t.Errorf("help lacks the way back to live:\n%s", screen(m))
	}
}
