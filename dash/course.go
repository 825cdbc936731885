package dash

import (
	"fmt"

	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/ui"
)

// lessonOf is the course's state as the lesson pane's plain data.
func lessonOf(s learn.Status) ui.Lesson {
	l := ui.Lesson{Title: fmt.Sprintf("lesson %d of %d · %s", s.Position, s.Lessons, s.Title),
		Step: fmt.Sprintf("step %d of %d · %s", s.Step, s.Steps, s.StepName), Text: s.Text, Said: s.Said, Over: s.Over}
	if s.Over {
		l.Title, l.Step, l.Text = "the course is complete", "all lessons done", "`:lessons` lists them; `:lesson N` runs one again."
	}
	for _, c := range s.Checks {
		l.Checks = append(l.Checks, ui.LessonCheck{Text: c.Text, OK: c.OK, Judged: c.Judged})
	}
	return l
}
