package dash

import (
	"context"
	"fmt"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"

	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/ui"
)

// lessonOf is the course's state as the lesson pane's plain data.
func lessonOf(s learn.Status) ui.Lesson {
	l := ui.Lesson{Title: fmt.Sprintf("lesson %d of %d · %s", s.Position, s.Lessons, s.Title),
		Step: fmt.Sprintf("step %d of %d · %s", s.Step, s.Steps, s.StepName), Text: s.Text, Said: s.Said, Over: s.Over,
		QP: s.QP.Name, QPState: s.QP.State, QPNext: s.QP.Next}
	if s.Over {
		l.Title, l.Step, l.Text = "the course is complete", "all lessons done", "`:lessons` lists them; `:lesson N` runs one again."
	}
	for _, c := range s.Checks {
		l.Checks = append(l.Checks, ui.LessonCheck{Text: c.Text, OK: c.OK, Judged: c.Judged})
	}
	return l
}

// startCourse starts the built-in course for `:learn`, where saved
// progress left it, each lesson in a shell of its own.
func startCourse(ctx context.Context, conn *inspect.Conn, o Options) (*learn.Tutor, error) {
	lessons, err := learn.Course()
	if err != nil {
		return nil, err
	}
	lessons = learn.Expand(lessons, learn.HostVars(o.Dev, o.GIDIndex))
	t, _, err := learn.NewTutor(ctx, learn.TutorOptions{Lessons: lessons, Kernel: learn.Netlink{Conn: conn},
		ProgressPath: learn.ProgressPath(), Brief: true,
		NewEngine: func() front.Engine { return shell.New(shell.Options{Device: o.Dev, GIDIndex: o.GIDIndex}) }})
	return t, err
}
