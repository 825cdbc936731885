package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/shell/transcript"
)

// recordedLines are two shells' sessions as a recording holds them: a
// script (pid 812) opens and fails, then the dashboard's pane (pid 900)
// opens.
func recordedLines() []transcript.Line {
	at := func(s int) time.Time { return time.Date(2026, 12, 1, 2, 47, s, 0, time.UTC) }
	return []transcript.Line{
		{Time: at(1), PID: 812, Face: "script", Kind: "in", Text: "open"},
		{Time: at(1), PID: 812, Face: "script", Kind: "out", Text: "opened rxe0"},
		{Time: at(2), PID: 812, Face: "script", Kind: "in", Text: "modify qp9 rts"},
		{Time: at(2), PID: 812, Face: "script", Kind: "out", Text: "modify: no QP named qp9\n  fix: 'objects' lists them"},
		{Time: at(3), PID: 900, Face: "dash", Kind: "in", Text: "pd"},
		{Time: at(3), PID: 900, Face: "dash", Kind: "out", Text: "pd1"},
	}
}

// TestShellPaneReplay: in a replay the shell pane shows the recorded
// session up to the time shown, of the shell that wrote last, named in
// its title, and refuses typing with a note; a rewind back at live
// shows the pane's own shell again.
func TestShellPaneReplay(t *testing.T) {
	r := &fakeReplay{pos: ReplayPosition{Time: time.Date(2026, 12, 1, 2, 47, 5, 0, time.Local), Len: 10, Speed: 1}}
	ch := make(chan []transcript.Line)
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false, func(s *Sources) { s.Replay, s.ReplayShell = r, ch })
	if m.pane == nil {
		t.Fatal("a replay of a recording with shells has no shell pane")
	}
	send(m, "tab")
	if out := screen(m); !strings.Contains(out, "no verbs shell had run by this time") || !strings.Contains(out, "replay: read-only") {
		t.Errorf("before any command, the pane should say none ran:\n%s", out)
	}
	ls := recordedLines()
	m.Update(replayShellMsg{ls[:4]})
	out := screen(m)
	for _, want := range []string{"recorded session of pid 812 (script) · read-only", "verbs> open", "opened rxe0",
		"verbs> modify qp9 rts", "modify: no QP named qp9", "fix: 'objects' lists them"} {
		if !strings.Contains(out, want) {
			t.Errorf("the pane lacks %q:\n%s", want, out)
		}
	}
	m.Update(replayShellMsg{ls})
	out = screen(m)
	if !strings.Contains(out, "recorded session of pid 900 (dash), the last of 2 shells · read-only") ||
		!strings.Contains(out, "verbs> pd") || strings.Contains(out, "verbs> open") {
		t.Errorf("with two shells, the pane should show the last one's, named:\n%s", out)
	}
	if out := screen(m); !strings.Contains(out, "PgUp scroll back") || strings.Contains(out, "tab complete") {
		t.Errorf("the focused read-only pane's hints should offer scrolling, not typing:\n%s", out)
	}
	typeText(m, "open")
	if out := screen(m); !strings.Contains(out, "the shell pane is read-only in a replay") || strings.Contains(out, "verbs> open") {
		t.Errorf("typing in a replay should be refused with a note:\n%s", out)
	}
	send(m, "esc")
	if m.paneFocus {
		t.Error("esc should leave the read-only pane")
	}

	// A rewind: live, the pane is the dashboard's own shell.
	rw := &fakeReplay{pos: ReplayPosition{Rewind: true, Live: true, Speed: 1}}
	m = fixtureModel(t, "rxe0", "dark", 120, 40, true, func(s *Sources) { s.Replay, s.ReplayShell = rw, ch })
	m.Update(replayShellMsg{ls})
	send(m, "tab")
	typeText(m, "pd")
	if out := screen(m); strings.Contains(out, "recorded session") || !strings.Contains(out, "verbs> pd") {
		t.Errorf("live, the pane should be the dashboard's own shell, typed in:\n%s", out)
	}
	rw.pos.Live, rw.pos.Behind = false, 40*time.Second
	send(m, "esc", "[")
	if out := screen(m); !strings.Contains(out, "recorded session of pid 900") {
		t.Errorf("rewound, the pane should show the recording:\n%s", out)
	}
}
