package dash

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/ui"
)

func TestLessonOf(t *testing.T) {
	st := learn.Status{Number: 2, Position: 2, Lessons: 7, Title: "The QP state machine", Step: 3, Steps: 7, StepName: "The mask",
		Text: "Give only the port.", Said: "✓ Try the shortcut",
		Checks: []learn.CheckState{{Text: "expect refusal", Judged: true}, {Text: "expect qp1 state=RESET", OK: true, Judged: true}}}
	want := ui.Lesson{Title: "lesson 2 of 7 · The QP state machine", Step: "step 3 of 7 · The mask", Text: "Give only the port.", Said: "✓ Try the shortcut",
		Checks: []ui.LessonCheck{{Text: "expect refusal", Judged: true}, {Text: "expect qp1 state=RESET", OK: true, Judged: true}}}
	if d := cmp.Diff(want, lessonOf(st)); d != "" {
		t.Errorf("lessonOf (-want +got):\n%s", d)
	}
	st.Over = true
	if got := lessonOf(st); got.Title != "the course is complete" || !got.Over {
		t.Errorf("the course over: %+v", got)
	}
}
