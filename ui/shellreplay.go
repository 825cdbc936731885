package ui

import (
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/themes"
)

// recordedShell is what the shell pane shows while a recording's past
// is shown: the session of the shell that wrote last by then, built
// when the lines come (render only reads it).
type recordedShell struct {
	lines  []paneLine
	answer int
	title  string
}

// replayShellMsg is the recorded shells' lines up to the reading shown
// (Sources.ReplayShell, a Feed).
type replayShellMsg struct{ lines []transcript.Line }

// showsRecorded says whether the pane shows the recording, not its own
// shell: in a replay, or a rewind away from live.
func (m *model) showsRecorded() bool {
	r := m.c.src.Replay
	if m.pane == nil || r == nil || m.c.src.ReplayShell == nil {
		return false
	}
	p := r.Position()
	return !p.Rewind || !p.Live
}

// setRecorded takes the recorded lines: of several shells, the one that
// wrote last is shown, as its pane showed it.
func (p *shellPane) setRecorded(ls []transcript.Line) {
	r := recordedShell{title: " shell · recorded, read-only "}
	if len(ls) == 0 {
		r.lines = []paneLine{{themes.SlotDim, "no verbs shell had run by this time of the recording"}}
		p.recorded = r
		return
	}
	last := ls[len(ls)-1]
	pids := map[int]bool{}
	for _, l := range ls {
		pids[l.PID] = true
		if l.PID != last.PID {
			continue
		}
		if l.Kind == transcript.KindIn {
			r.lines = appendSay(r.lines, themes.SlotAccent, "verbs> "+l.Text)
			r.answer = len(r.lines)
		} else if l.Text != "" {
			r.lines = appendSay(r.lines, "", l.Text)
		}
	}
	r.title = " shell · recorded session of pid " + strconv.Itoa(last.PID) + " (" + last.Face + ")"
	if len(pids) > 1 {
		r.title += ", the last of " + strconv.Itoa(len(pids)) + " shells"
	}
	r.title += " · read-only "
	p.recorded = r
}

// recordedKey takes the keys a read-only pane has (scrolling); false
// for the others, which would type.
func (p *shellPane) recordedKey(msg tea.KeyPressMsg) bool {
	if !matchesAny(msg, []key.Binding{p.keys.scrollUp, p.keys.scrollDown}) {
		return false
	}
	p.key(msg)
	return true
}
