package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// lessonFixture is lesson 2 at its third step, one command judged.
func lessonFixture() Lesson {
	return Lesson{
		Title: "lesson 2 of 4 · The QP state machine",
		Step:  "step 3 of 7 · The mask: a missing bit",
		Text: "RESET→INIT for an RC QP needs PKEY_INDEX, PORT and ACCESS_FLAGS. Give only the port: `modify qp1 init port=1`. " +
			"The mask lacks two bits the kernel requires.\n\nRead which attributes the refusal names.",
		Checks: []LessonCheck{{Text: "expect refusal mentions=PKEY_INDEX", Judged: true}, {Text: "expect qp1 state=RESET", OK: true, Judged: true}},
		Said:   "✓ Try the shortcut: RESET→RTR is not in the kernel's table.",
		QP:     "qp1", QPState: rdma.QPStateReset, QPNext: []rdma.QPState{rdma.QPStateInit},
	}
}

func lessonModel(t *testing.T, w, h int) (*model, *fakeEngine) {
	m := fixtureModel(t, "rxe0", "dark", w, h, true)
	l := lessonFixture()
	m.startLesson(func() Lesson { return l })
	m.relayout()
	return m, m.pane.eng.(*fakeEngine)
}

func TestLessonPaneGolden(t *testing.T) {
	for _, sz := range sizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m, _ := lessonModel(t, sz[0], sz[1])
			out := screen(m)
			checkFits(t, out, sz[0], sz[1])
			requireBody(t, out)
		})
	}
}

// The lesson's keys work while the shell pane has focus (letters are
// typed there): each sends the course's command to the shell, and `?`
// lists them.
func TestLessonKeys(t *testing.T) {
	m, eng := lessonModel(t, 100, 30)
	if !m.paneFocus {
		t.Fatal("the course starts with the shell pane focused")
	}
	typeText(m, "mod")
	for _, k := range []string{"f2", "f2", "f3", "f4", "f5"} {
		_, cmd := m.Update(fnKey(k))
		runCmd(m, cmd)
	}
	if want := []string{":hint", ":hint", ":prev", ":next", ":lessons"}; !slices.Equal(eng.ran, want) {
		t.Errorf("the shell ran %q, want %q", eng.ran, want)
	}
	if m.pane.input.Value() != "mod" {
		t.Errorf("the line being typed changed to %q", m.pane.input.Value())
	}
	send(m, "esc", "?")
	// The help scrolls when it is longer than the screen: read it all.
	out := screen(m)
	for range 5 {
		send(m, "pgdown")
		out += screen(m)
	}
	if !strings.Contains(out, "f2 lesson: hint, again the solution") || !strings.Contains(out, "f5 lesson: the lessons") {
		t.Errorf("? does not list the lesson's keys:\n%s", out)
	}
}

func fnKey(k string) tea.KeyPressMsg {
	return tea.KeyPressMsg{Code: map[string]rune{"f2": tea.KeyF2, "f3": tea.KeyF3, "f4": tea.KeyF4, "f5": tea.KeyF5}[k]}
}

// `:learn` in a dashboard with a shell starts the course in the pane:
// the course's engine replaces the shell's, the lesson shows, the shell
// pane is focused; `:learn` again lists the lessons.
func TestColonLearn(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 100, 30, true)
	course := newFakeEngine()
	l := lessonFixture()
	m.c.src.Learn = func() (front.Engine, func() Lesson, error) { return course, func() Lesson { return l }, nil }
	send(m, ":")
	typeText(m, "learn")
	_, cmd := m.Update(keyMsg("enter"))
	msg := findMsg[learnMsg](cmd)
	if msg == nil {
		t.Fatal(":learn started nothing")
	}
	m.Update(*msg)
	if m.pane.eng != course || m.pane.lesson == nil || !m.paneFocus {
		t.Fatalf("after :learn: engine replaced %v, lesson %v, focus %v", m.pane.eng == course, m.pane.lesson != nil, m.paneFocus)
	}
	if out := screen(m); !strings.Contains(out, "lesson 2 of 4 · The QP state") {
		t.Errorf("no lesson pane:\n%s", out)
	}
	send(m, "esc", ":")
	typeText(m, "learn")
	_, cmd = m.Update(keyMsg("enter"))
	runCmd(m, cmd)
	if !slices.Equal(course.ran, []string{":lessons"}) {
		t.Errorf(":learn with the course running ran %q, want :lessons", course.ran)
	}
}

// A step the course finished between commands (the kernel moved the
// QP, another program ended) reaches the pane as an EventLesson: said in
// the scrollback, and the lesson pane reads the course again.
func TestLessonMovesOnWithoutACommand(t *testing.T) {
	m, eng := lessonModel(t, 100, 30)
	l := lessonFixture()
	m.pane.lessonFn = func() Lesson { return l }
	l.Step, l.Said = "step 4 of 7 · RESET→INIT, complete", "✓ The mask: a missing bit"
	ev := front.Event{Kind: front.EventLesson, Text: "✓ The mask: a missing bit: the kernel moved qp1"}
	_, cmd := m.Update(shellEventMsg{ev, true, eng.Events()})
	eng.events <- front.Event{Kind: front.EventNotice, Text: "so the pane's wait for the next event returns"}
	msg := findMsg[lessonMsg](cmd)
	if msg == nil {
		t.Fatal("an EventLesson did not read the course again")
	}
	m.Update(*msg)
	out := screen(m)
	for _, want := range []string{"step 4 of 7 · RESET→INIT, complete", "✓ The mask: a missing bit: the kernel moved qp1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
	// Other events do not read it.
	if msg := findMsg[lessonMsg](m.pane.reread(front.Event{Kind: front.EventAsync, Text: "CQ_ERR"})); msg != nil {
		t.Error("an async event read the course again")
	}
}

// findMsg runs a Cmd (and batches) and returns the first message of type T.
func findMsg[T any](cmd tea.Cmd) *T {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case T:
		return &msg
	case tea.BatchMsg:
		for _, c := range msg {
			if r := findMsg[T](c); r != nil {
				return r
			}
		}
	}
	return nil
}

// The learner's QP on the state machine's main line, marked as
// `diagram` marks it.
func TestQPLine(t *testing.T) {
	for _, tc := range []struct {
		l    Lesson
		w    int
		want string
	}{
		{Lesson{QP: "qp1", QPState: rdma.QPStateReset, QPNext: []rdma.QPState{rdma.QPStateInit}}, 80, "qp1 [RESET] → (INIT) → RTR → RTS"},
		{Lesson{QP: "qp2", QPState: rdma.QPStateRTS, QPNext: []rdma.QPState{rdma.QPStateReset, rdma.QPStateSQD, rdma.QPStateErr}}, 80, "qp2 (RESET) → INIT → RTR → [RTS] · (SQD) · (ERR)"},
		{Lesson{QP: "qp1", QPState: rdma.QPStateErr, QPNext: []rdma.QPState{rdma.QPStateReset}}, 80, "qp1 (RESET) → INIT → RTR → RTS · [ERR]"},
		{Lesson{QP: "qp1", QPState: rdma.QPStateInit, QPNext: []rdma.QPState{rdma.QPStateReset, rdma.QPStateRTR, rdma.QPStateErr}}, 30, "qp1 (RESET)→[INIT]→(RTR)→RTS · (ERR)"},
	} {
		if got := qpLine(tc.l, tc.w); got != tc.want {
			t.Errorf("%+v at %d: %q, want %q", tc.l, tc.w, got, tc.want)
		}
	}
}
