package learn

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/shell/front"
)

// tutorCommands are the learner's own commands, beside the shell's.
var tutorCommands = []front.Suggestion{
	{Text: ":hint", Description: "a hint for this step; again: the solution"},
	{Text: ":solution", Description: "the lines that do this step"},
	{Text: ":next", Description: "do this step for me (runs its solution) and go on"},
	{Text: ":prev", Description: "back one step (the lesson's shell is rebuilt up to it)"},
	{Text: ":step", Description: "say the step again, with what its checks see now"},
	{Text: ":lessons", Description: "the lessons, done and pending"},
	{Text: ":lesson", Description: ":lesson N starts lesson N"},
}

func (t *Tutor) command(ctx context.Context, words []string) (string, error) {
	if len(words) == 0 {
		words = []string{"help"}
	}
	t.mu.Lock()
	over := t.sess == nil
	t.mu.Unlock()
	switch cmd := words[0]; {
	case cmd == "lessons":
		return t.lessonList(), nil
	case cmd == "lesson" && len(words) == 2:
		n, err := strconv.Atoi(words[1])
		i, ok := find(t.o.Lessons, n)
		if err != nil || !ok {
			return "", &front.Error{What: fmt.Sprintf("there is no lesson %q", words[1]), Fix: "the lessons are " + t.numbers()}
		}
		return t.enter(ctx, i, 0)
	case over:
		return "", &front.Error{What: "the course is over", Fix: "`:lessons` lists the lessons; `:lesson N` starts one again"}
	case cmd == "hint":
		return t.hint(false), nil
	case cmd == "solution":
		return t.hint(true), nil
	case cmd == "step":
		return t.stepText() + t.checksNow(), nil
	case cmd == "next":
		return t.skip(ctx)
	case cmd == "prev":
		t.mu.Lock()
		i, step := t.lesson, t.step
		t.mu.Unlock()
		if step == 0 {
			return "", &front.Error{What: "this is the lesson's first step", Fix: "`:lesson N` goes to another lesson"}
		}
		return t.enter(ctx, i, step-1)
	}
	var b strings.Builder
	b.WriteString("the course's commands (verbs go to the shell):\n")
	for _, s := range tutorCommands {
		fmt.Fprintf(&b, "  %-10s %s\n", s.Text, s.Description)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// hint gives the hint, or the solution when asked twice (or directly).
func (t *Tutor) hint(solution bool) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.o.Lessons[t.lesson].Steps[t.step]
	t.hints++
	if !solution && t.hints == 1 && s.Hint != "" {
		return "hint: " + s.Hint + "\n(:hint again shows the solution)"
	}
	t.hints = 2
	return "solution:\n" + solutionText(s)
}

// solutionText is a step's solution as the learner types it.
func solutionText(s Step) string {
	var lines []string
	for _, l := range s.Solution {
		if l.Refused {
			lines = append(lines, "  "+l.Text+"     # the shell refuses this one: that is the point")
		} else {
			lines = append(lines, "  "+l.Text)
		}
	}
	return strings.Join(lines, "\n")
}

// skip runs the step's solution for the learner and judges it.
func (t *Tutor) skip(ctx context.Context) (string, error) {
	t.mu.Lock()
	s, sess := t.o.Lessons[t.lesson].Steps[t.step], t.sess
	t.mu.Unlock()
	if err := sess.Solve(ctx, s); err != nil {
		return "", &front.Error{What: "the step's solution did not run", Why: err.Error(), Fix: "`:prev` then `:next` rebuilds the lesson up to here"}
	}
	more, err := t.judge(ctx)
	if err != nil {
		return "", err
	}
	if more == "" {
		return "", &front.Error{What: "the step's solution ran but its checks do not hold", Why: t.checksNow(),
			Fix: "something the step needs was changed or destroyed: `:prev` rebuilds the lesson up to here"}
	}
	return "ran:\n" + solutionText(s) + "\n\n" + more, nil
}

// checksNow says what each check of the step sees, as of the last judge.
func (t *Tutor) checksNow() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for _, o := range t.last {
		mark := "✗"
		if o.OK {
			mark = "✓"
		}
		fmt.Fprintf(&b, "\n  %s %s: %s", mark, o.Check.Text, o.Got)
	}
	return b.String()
}

func (t *Tutor) lessonList() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b strings.Builder
	for i, l := range t.o.Lessons {
		mark := "  "
		switch {
		case t.sess != nil && i == t.lesson:
			mark = "▶ "
		case t.prog.isDone(l.Number):
			mark = "✓ "
		}
		status := "pending"
		if t.prog.isDone(l.Number) {
			status = "done"
		}
		if why := unmet(l); why != "" {
			status = "skipped: " + why
		}
		fmt.Fprintf(&b, "%s%2d. %-40s %s\n", mark, l.Number, l.Title, status)
	}
	return strings.TrimRight(b.String(), "\n")
}

// State is the current lesson's shell's State.
func (t *Tutor) State() front.State {
	t.mu.Lock()
	sess := t.sess
	t.mu.Unlock()
	if sess == nil {
		return front.State{}
	}
	return sess.Engine.State()
}

// Complete offers the learner's commands after ':', and the shell's
// completion otherwise.
func (t *Tutor) Complete(line string, cursor int) front.Completion {
	if strings.HasPrefix(line, ":") && !strings.Contains(line[:cursor], " ") {
		c := front.Completion{Start: 0, End: cursor}
		for _, s := range tutorCommands {
			if strings.HasPrefix(s.Text, line[:cursor]) {
				c.Items = append(c.Items, s)
			}
		}
		return c
	}
	t.mu.Lock()
	sess := t.sess
	t.mu.Unlock()
	if sess == nil {
		return front.Completion{}
	}
	return sess.Engine.Complete(line, cursor)
}

// Events relays the current lesson's shell's events.
func (t *Tutor) Events() <-chan front.Event { return t.events }

// Close closes the lesson's shell (destroying its objects) and saves
// progress. It is idempotent.
func (t *Tutor) Close() error {
	if t.watched != nil {
		t.stopWatch()
		<-t.watched
	}
	t.execMu.Lock()
	defer t.execMu.Unlock()
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	sess := t.sess
	t.sess = nil
	t.mu.Unlock()
	var err error
	if sess != nil {
		err = sess.Close()
	}
	close(t.events)
	return err
}
