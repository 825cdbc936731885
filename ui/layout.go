package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/themes"
)

// The smallest terminal the dashboard draws in; below it, it says so.
const (
	minWidth  = 60
	minHeight = 16
)

// headerHeight is the header's lines: who and where, the ports, the
// alerts, the view tabs.
const headerHeight = 4

// layout is where each part of the screen goes. relayout sets it after
// every message (the size, the pane's focus and the mode decide it) and
// sizes every component to it; render only reads it.
type layout struct {
	headerH, mainH, paneH int
	// panes are the panes on screen (panes.go); lessonLines is the
	// lesson pane drawn for lessonFor.
	panes       []placedPane
	lessonLines []string
	lessonFor   lessonDrawn
	// hints is the footer's key hints at this width and focus.
	hints    string
	hintsFor hintsKey
}

// hintsKey is what the key hints line depends on.
type hintsKey struct {
	theme     *themes.Theme
	w         int
	paneFocus bool
	// replay: the pane shows a recording, and takes no typing.
	replay bool
}

// resize is a WindowSizeMsg's work, for New's default size.
func (m *model) resize(w, h int) {
	m.w, m.h = w, h
	m.relayout()
}

// relayout computes the layout and sets every component's size from it.
func (m *model) relayout() {
	l := &m.lay
	l.headerH = headerHeight
	l.paneH = m.paneHeight()
	l.mainH = m.h - l.headerH - 1 - l.paneH
	for _, p := range m.pages {
		p.table.SetSize(m.w, l.mainH)
	}
	l.panes = m.placePanes()
	if m.pane != nil {
		m.pane.replay = m.showsRecorded()
		m.pane.setSize(l.paneW("shell"), l.paneH)
	}
	if lw := l.paneW("lesson"); lw > 0 {
		// The lesson changes with a command, not a keystroke: drawn
		// again only when it, the size, the focus or the theme changed.
		k := lessonDrawn{m.pane.lesson, m.c.theme, lw, l.paneH, m.paneFocus}
		if l.lessonLines == nil || l.lessonFor != k {
			l.lessonFor = k
			l.lessonLines = strings.Split(renderLesson(m.c.theme, *m.pane.lesson, k.w, k.h, k.focused), "\n")
		}
	}
	if m.mode.typing() {
		// The line leaves room for the hint (the input pads to its width).
		m.line.SetWidth(max(10, m.w-2-ansi.StringWidth(m.lineHint())))
	}
	if k := (hintsKey{m.c.theme, m.w, m.paneFocus, m.pane != nil && m.pane.replay}); l.hints == "" || l.hintsFor != k {
		l.hints, l.hintsFor = m.keyHints(), k
	}
}

// paneHeight gives the shell pane about 40% of the screen when it has
// focus and a third otherwise.
func (m *model) paneHeight() int {
	if m.pane == nil || m.mode == modeHelp {
		// The help takes the pane's room too: it is read, not typed in.
		return 0
	}
	room := m.h - headerHeight - 1 // all but the header and the footer
	if m.pane.lesson != nil && m.split != splitView {
		// The course is read beside the shell, focused or not: half the
		// screen, the QP view above it (or more, as the split says).
		if m.split == splitShell {
			return max(paneMin, room-mainMin)
		}
		return min(max(10, room/2), max(paneMin, room-mainMin))
	}
	if !m.paneFocus || m.split == splitView {
		return paneCompact
	}
	switch m.split {
	case splitHalf:
		return max(paneMin, room/2)
	case splitShell:
		return max(paneMin, room-mainMin)
	}
	return max(paneMin, room/3)
}

// paneSplit is how the focused shell pane shares the screen; the Split
// key cycles it, as lazygit's screen modes do, and the choice lasts the
// session. Unfocused, the pane is compact whatever the split: the data
// gets the room while nobody types.
type paneSplit int

const (
	splitThird paneSplit = iota // the pane a third of the screen
	splitHalf                   // half
	splitShell                  // the pane all but a few rows of the view
	splitView                   // the view all but the pane's compact lines
	splitModes
)

// splitNames say each split on the status line.
var splitNames = [...]string{
	"the shell pane takes a third of the screen",
	"the shell pane takes half the screen",
	"the shell pane takes the screen (the view keeps a row)",
	"the view takes the screen (the pane keeps its prompt)",
}

// The pane's heights: compact is its rule, the last answer's first line
// and the prompt; paneMin the least a focused pane gets; mainMin the
// view's title, column heads and a row, which the shell never takes.
const (
	paneCompact = 3
	paneMin     = 7
	mainMin     = 3
)

// render composes the screen: header, the main area, the shell pane and
// the footer, exactly w×h.
func (m *model) render() string {
	if m.w < minWidth || m.h < minHeight {
		return tooSmall(m.c.theme, m.w, m.h)
	}
	parts := []string{m.header(), m.mainArea()}
	if m.lay.paneH > 0 {
		parts = append(parts, m.renderPanes())
	}
	parts = append(parts, m.footer())
	return strings.Join(parts, "\n")
}

func tooSmall(th *themes.Theme, w, h int) string {
	msg := "terminal too small: " + itoa(w) + "×" + itoa(h) + "; verbscope needs at least " + itoa(minWidth) + "×" + itoa(minHeight) + " (q quits)"
	lines := wrap(msg, max(10, w))
	for len(lines) < h {
		lines = append(lines, "")
	}
	return th.Render(themes.SlotWarn, strings.Join(lines[:max(1, h)], "\n"))
}

func matchesAny(msg tea.KeyPressMsg, bs []key.Binding) bool {
	return len(bs) > 0 && key.Matches(msg, bs...)
}

// lessonDrawn is what the lesson pane's drawing depends on.
type lessonDrawn struct {
	l       *Lesson
	theme   *themes.Theme
	w, h    int
	focused bool
}

// lessonWidth gives the lesson pane two fifths of the width, at least
// 30 cells, leaving the shell at least 40.
func lessonWidth(w int) int { return min(max(30, w*2/5), w-40) }
