package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
)

// Lesson is the course as the lesson pane shows it: plain data the
// caller (dash, from learn) reads after each shell command.
type Lesson struct {
	Title  string // "lesson 2 of 4 · The QP state machine"
	Step   string // "step 3 of 7 · The mask: a missing bit"
	Text   string // what to do and why; paragraphs split by blank lines
	Checks []LessonCheck
	Said   string // what the step done last did
	Over   bool   // the course is finished
	// QP is the learner's QP the step is about, drawn on the state
	// machine's main line ("" draws nothing).
	QP      string
	QPState rdma.QPState   // where it is (rdma.QPStateUnknown marks none)
	QPNext  []rdma.QPState // where a modify may take it
}

// LessonCheck is one check of the step, as last judged.
type LessonCheck struct {
	Text   string
	OK     bool
	Judged bool // false until a command was judged in this step
}

// lessonKeys work while the shell pane has focus, where letters are
// typed: function keys. Each sends the course's own command to the shell.
type lessonKeys struct {
	Hint, Prev, Next, List key.Binding
}

func defaultLessonKeys() lessonKeys {
	b := func(k, desc string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, desc)) }
	return lessonKeys{
		Hint: b("f2", "lesson: hint, again the solution"),
		Prev: b("f3", "lesson: previous step"),
		Next: b("f4", "lesson: do this step for me, next"),
		List: b("f5", "lesson: the lessons, done and pending"),
	}
}

func (k lessonKeys) bindings() []key.Binding { return []key.Binding{k.Hint, k.Prev, k.Next, k.List} }

// command is the course's command a key sends ("" for none).
func (k lessonKeys) command(msg tea.KeyPressMsg) string {
	switch {
	case key.Matches(msg, k.Hint):
		return ":hint"
	case key.Matches(msg, k.Prev):
		return ":prev"
	case key.Matches(msg, k.Next):
		return ":next"
	case key.Matches(msg, k.List):
		return ":lessons"
	}
	return ""
}

// renderLesson draws the lesson pane at w×h: a rule with the lesson,
// the step and its text, then what the checks see, what just happened,
// and the keys. The text gets the room first; what does not fit ends in
// a pointer to :step, which prints it all in the shell.
func renderLesson(th *themes.Theme, l Lesson, w, h int, focused bool) string {
	if h < 3 || w < 10 {
		return strings.Repeat("\n", max(0, h-1))
	}
	rule := "─"
	if th.ASCII {
		rule = "-"
	}
	head := ansi.Truncate(rule+rule+" "+l.Title+" ", w, "…")
	head += strings.Repeat(rule, max(0, w-ansi.StringWidth(head)))
	slot := themes.SlotBorder
	if focused {
		slot = themes.SlotAccent
	}
	keys := "F2 hint · F3 back · F4 do it · F5 list"
	for _, k := range []string{"F2 hint F3 back F4 do it F5 list", "F2 hint F3 back F4 do F5 list"} {
		if ansi.StringWidth(keys) > w {
			keys = k
		}
	}
	keys = ansi.Truncate(keys, w, "…")
	var checks, said []string
	for _, c := range l.Checks {
		mark, s := "·", themes.SlotDim
		if c.Judged && c.OK {
			mark, s = "✓", themes.SlotOK
		} else if c.Judged {
			mark, s = "✗", themes.SlotWarn
		}
		checks = append(checks, th.Render(s, pad(ansi.Truncate(mark+" "+strings.TrimPrefix(c.Text, "expect "), w, "…"), w)))
	}
	if l.QP != "" {
		for _, s := range wrap(qpLine(l, w), w) {
			checks = append(checks, th.Render(themes.SlotAccent, pad(ansi.Truncate(s, w, "…"), w)))
		}
	}
	if l.Said != "" {
		for _, s := range wrap(l.Said, w) {
			said = append(said, th.Render(themes.SlotOK, pad(ansi.Truncate(s, w, "…"), w)))
		}
	}
	var body []string
	for _, s := range wrap(l.Step, w) {
		body = append(body, th.Render(themes.SlotAccent, pad(ansi.Truncate(s, w, "…"), w)))
	}
	for i, para := range strings.Split(l.Text, "\n\n") {
		if i > 0 {
			body = append(body, pad("", w))
		}
		for _, s := range wrap(para, w) {
			body = append(body, pad(ansi.Truncate(s, w, "…"), w))
		}
	}
	room := h - 2 // the rule and the keys
	// The text comes first, then the checks; what just happened only
	// when all of those fit (it is in the shell's scrollback too). The
	// text keeps at least half the room.
	tail := checks
	if len(body)+len(checks)+len(said) <= room {
		tail = append(tail, said...)
	}
	tail = tail[:min(len(tail), max(0, room-min(len(body), room/2+1)))]
	if len(body) > room-len(tail) {
		body = append(body[:max(0, room-len(tail)-1)], th.Render(themes.SlotDim, pad(ansi.Truncate("… :step prints it all", w, "…"), w)))
	}
	lines := []string{th.Render(slot, head)}
	lines = append(lines, body...)
	for len(lines)+len(tail) < h-1 {
		lines = append(lines, pad("", w))
	}
	lines = append(lines, tail...)
	lines = append(lines, th.Render(themes.SlotKey, pad(keys, w)))
	return strings.Join(lines[:h], "\n")
}

// qpLine draws the QP on the state machine's main line, as the QP view
// and `diagram` mark it (rdma.StateDiagram): [its state], (the states a
// modify may take it to), SQD, SQE and ERR when they are either:
// "qp1 [RESET] → (INIT) → RTR → RTS", without the blanks when that does
// not fit in w.
func qpLine(l Lesson, w int) string {
	name := l.QP + " "
	return name + rdma.StateDiagram(l.QPState, rdma.DiagramOptions{Next: l.QPNext, Width: max(1, w-ansi.StringWidth(name))})[0]
}

// learnMsg is the course started by `:learn`, or why it did not start.
type learnMsg struct {
	eng    front.Engine
	lesson func() Lesson
	err    error
}

// learn is `:learn`: the course in the shell pane (started in a Cmd), or
// the list of lessons when it already runs there.
func (m *model) learn() tea.Cmd {
	switch {
	case m.pane == nil || m.c.src.Learn == nil:
		m.c.note(themes.SlotWarn, "no course here: this dashboard has no shell pane; run `verbscope learn`")
		return nil
	case m.pane.lesson != nil:
		m.paneFocus = true
		return tea.Batch(m.pane.focus(), m.pane.submit(":lessons"))
	}
	start := m.c.src.Learn
	m.c.note(themes.SlotDim, "starting the course…")
	return func() tea.Msg {
		eng, fn, err := start()
		return learnMsg{eng, fn, err}
	}
}

// startCourse puts the started course in the pane: the shell before it
// stays open (the caller closes it at the end) but the pane drives the
// course's.
func (m *model) startCourse(msg learnMsg) tea.Cmd {
	if msg.err != nil {
		m.c.note(themes.SlotError, "the course did not start: "+firstLine(msg.err.Error()))
		return nil
	}
	m.c.note("", "")
	m.pane.eng = msg.eng
	m.pane.say(themes.SlotDim, "the course: the lesson is on the left; F2 a hint, F5 the lessons; the shell before it keeps its objects until you quit")
	return tea.Batch(m.startLesson(msg.lesson), m.pane.events())
}
