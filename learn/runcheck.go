package learn

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/verbscope/verbscope/shell/front"
)

// CheckOptions configure RunCheck.
type CheckOptions struct {
	// NewEngine starts a fresh verbs shell; each lesson gets its own and
	// closes it at its end, which destroys what the lesson created.
	NewEngine func() front.Engine
	Kernel    Kernel // nil: checks see the shell's State alone
	Out       io.Writer
	// Settle is how long a step's checks are judged again before it
	// fails: the device finishes some work after the command returned
	// (an overrun's async event, a QP moved to ERR). Zero judges once.
	Settle time.Duration
	// AllowPrograms lets a pack's lessons start their background
	// programs (PackPrograms lists them); built-in lessons always may.
	AllowPrograms bool
}

// StepFailure names a step whose solution did not pass.
type StepFailure struct {
	Lesson, Step int
	Title        string
	Reason       string
}

func (f StepFailure) Error() string {
	return fmt.Sprintf("lesson %d step %d %q: %s", f.Lesson, f.Step, f.Title, f.Reason)
}

// CheckError lists every step that failed.
type CheckError struct{ Failures []StepFailure }

func (e *CheckError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "learn: %d step(s) failed:", len(e.Failures))
	for _, f := range e.Failures {
		b.WriteString("\n  " + f.Error())
	}
	return b.String()
}

// RunCheck runs every lesson's solution on a fresh shell, judging each
// step by its checks, and reports each step on o.Out. A lesson stops at
// its first failed step (the next steps build on it); the others still
// run. Lessons whose requirements the host lacks are reported skipped,
// with the reason. The error is a *CheckError naming each failed step.
func RunCheck(ctx context.Context, lessons []Lesson, o CheckOptions) error {
	var failures []StepFailure
	for _, l := range lessons {
		fmt.Fprintf(o.Out, "lesson %d: %s\n", l.Number, l.Title)
		if why := unmet(l); why != "" {
			fmt.Fprintf(o.Out, "  skipped: %s\n", why)
			continue
		}
		if f := checkLesson(ctx, l, o); f != nil {
			failures = append(failures, *f)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if len(failures) > 0 {
		return &CheckError{Failures: failures}
	}
	return nil
}

func checkLesson(ctx context.Context, l Lesson, o CheckOptions) *StepFailure {
	s := newSession(o.NewEngine(), o.Kernel, nil)
	defer s.Close()
	if err := s.Prepare(ctx, l, o.AllowPrograms); err != nil {
		fmt.Fprintf(o.Out, "  setup: FAILED\n    %s\n", err)
		return &StepFailure{Lesson: l.Number, Title: "setup", Reason: err.Error()}
	}
	for i, st := range l.Steps {
		fail := func(reason string) *StepFailure {
			if said := s.endPrograms(); said != "" {
				// What the lesson's peer program saw is half the story.
				reason += "\n" + strings.TrimRight(said, "\n")
			}
			fmt.Fprintf(o.Out, "  step %d/%d %s: FAILED\n    %s\n", i+1, len(l.Steps), st.Title, strings.ReplaceAll(reason, "\n", "\n    "))
			return &StepFailure{Lesson: l.Number, Step: i + 1, Title: st.Title, Reason: reason}
		}
		if err := s.Solve(ctx, st); err != nil {
			return fail(err.Error())
		}
		outs, err := s.Judge(st)
		for deadline := time.Now().Add(o.Settle); err == nil && !passed(outs) && time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			outs, err = s.Judge(st)
		}
		if err != nil {
			return fail(err.Error())
		}
		if !passed(outs) {
			var why []string
			for _, out := range outs {
				if !out.OK {
					why = append(why, fmt.Sprintf("%s (line %d): %s", out.Check.Text, out.Check.Line, out.Got))
				}
			}
			return fail(strings.Join(why, "\n"))
		}
		fmt.Fprintf(o.Out, "  step %d/%d %s: ok\n", i+1, len(l.Steps), st.Title)
	}
	return nil
}
