package ui

import (
	"strings"

	"github.com/verbscope/verbscope/themes"
)

// paneSpec is a pane's line in paneRegistry: the panes share the rows
// below the main area, left to right, a column of the border between
// two.
type paneSpec struct {
	name string
	// on is the one rule of when the pane is on screen.
	on func(m *model) bool
	// width is its columns at the screen's width w, the border after it
	// included; the last pane on takes what the others leave.
	width func(w int) int
	// draw is its lines at the size relayout gave it.
	draw func(m *model) []string
}

// paneRegistry lists the panes in their order on screen: the course's
// lesson beside the shell.
var paneRegistry = []paneSpec{
	{name: "lesson", width: lessonWidth,
		on:   func(m *model) bool { return m.pane != nil && m.pane.lesson != nil },
		draw: func(m *model) []string { return m.lay.lessonLines }},
	{name: "shell",
		on: func(m *model) bool { return m.pane != nil },
		draw: func(m *model) []string {
			return strings.Split(m.pane.render(m.c.theme, m.paneFocus), "\n")
		}},
}

// hasShellPane is the one rule of the shell pane's presence: the
// dashboard has a shell (it was not started with --no-shell), or a
// recording's shells to show.
func hasShellPane(src Sources) bool { return src.Shell != nil || src.ReplayShell != nil }

// noShellPane is what the pane's keys say when there is none.
const noShellPane = "no shell pane: this dashboard was started without the verbs shell"

// placedPane is a pane on screen and its width, the border not counted.
type placedPane struct {
	paneSpec
	w int
}

// placePanes lays the panes that are on across the screen's width.
func (m *model) placePanes() []placedPane {
	var out []placedPane
	for _, p := range paneRegistry {
		if p.on(m) {
			out = append(out, placedPane{paneSpec: p})
		}
	}
	left := m.w
	for i := range out {
		if i == len(out)-1 {
			out[i].w = left
			break
		}
		out[i].w = out[i].width(m.w) - 1
		left -= out[i].w + 1
	}
	return out
}

// paneW is the width of the pane named name (0: it is not on screen).
func (l *layout) paneW(name string) int {
	for _, p := range l.panes {
		if p.name == name {
			return p.w
		}
	}
	return 0
}

// renderPanes draws the panes on screen side by side, a border column
// between two.
func (m *model) renderPanes() string {
	sep := m.c.theme.Render(themes.SlotBorder, "│")
	if m.c.theme.ASCII {
		sep = m.c.theme.Render(themes.SlotBorder, "|")
	}
	rows := make([]string, m.lay.paneH)
	for j, p := range m.lay.panes {
		lines := p.draw(m)
		for i := range rows {
			l := ""
			if i < len(lines) {
				l = lines[i]
			}
			if j < len(m.lay.panes)-1 {
				l = pad(l, p.w) + sep
			}
			rows[i] += l
		}
	}
	return strings.Join(rows, "\n")
}
