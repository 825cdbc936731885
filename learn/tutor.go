package learn

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/verbscope/verbscope/shell/front"
)

// TutorOptions configure a Tutor.
type TutorOptions struct {
	Lessons   []Lesson
	NewEngine func() front.Engine // a fresh verbs shell, one per lesson
	Kernel    Kernel              // nil: checks see the shell's State alone
	// ProgressPath is where progress is saved ("" keeps it in memory).
	ProgressPath string
	// Start is the lesson number to begin at; 0 resumes saved progress.
	Start int
	// Brief leaves the step's text out of command results, for a front
	// end that shows the lesson in a pane of its own.
	Brief bool
	// Recheck is how often the step is judged again between commands
	// (tutor_watch.go); the lesson shell's events wake it too. 0 is
	// a second (defaultRecheck); below 0 judges only after commands.
	Recheck time.Duration
	// AllowPrograms lets a pack's lessons start their background
	// programs (PackPrograms lists them); built-in lessons always may.
	AllowPrograms bool
}

// Tutor runs the course as a front.Engine: verbs go to the current
// lesson's shell and each is followed by a judgement of the step, which
// advances when its checks hold; lines starting with ':' are the
// learner's own commands (:hint, :next, :prev, :lessons, :lesson N,
// :step). Each lesson has its own shell, closed at the lesson's end, so
// what a lesson created is destroyed with it.
type Tutor struct {
	o      TutorOptions
	execMu sync.Mutex // one Exec at a time

	mu       sync.Mutex // guards the fields below
	sess     *session
	lesson   int // index into o.Lessons
	step     int
	hints    int // how often :hint was asked in this step
	prog     Progress
	last     []outcome
	said     string // what just happened, after the last step done
	finished bool
	closed   bool

	events chan front.Event
	// The watcher (tutor_watch.go): wake asks it to judge, stopWatch
	// ends it, watched closes when it has ended (nil: no watcher).
	wake      chan struct{}
	stopWatch context.CancelFunc
	watched   chan struct{}
}

var _ front.Engine = (*Tutor)(nil)

// NewTutor starts the course at o.Start, or where saved progress left
// it; when that is mid-lesson, the steps before are replayed (their
// solutions) so the shell holds what the learner had made. The text is
// the opening: where the learner is and what to do.
func NewTutor(ctx context.Context, o TutorOptions) (*Tutor, string, error) {
	if len(o.Lessons) == 0 {
		return nil, "", fmt.Errorf("learn: no lessons")
	}
	prog, err := LoadProgress(o.ProgressPath)
	if err != nil {
		return nil, "", err
	}
	t := &Tutor{o: o, prog: prog, events: make(chan front.Event, 256), wake: make(chan struct{}, 1)}
	lesson, step := 0, 0
	if o.Start != 0 {
		i, ok := find(o.Lessons, o.Start)
		if !ok {
			return nil, "", fmt.Errorf("learn: there is no lesson %d (the lessons are %s)", o.Start, t.numbers())
		}
		lesson = i
	} else if i, ok := find(o.Lessons, prog.Lesson); ok {
		lesson, step = i, prog.Step
	}
	text, err := t.enter(ctx, lesson, step)
	if err == nil && o.Recheck >= 0 {
		every := o.Recheck
		if every == 0 {
			every = defaultRecheck
		}
		// The watcher outlives NewTutor's ctx; Close ends it.
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		t.watched, t.stopWatch = make(chan struct{}), cancel
		go t.watch(wctx, every)
	}
	return t, text, err
}

func (t *Tutor) numbers() string {
	var ns []string
	for _, l := range t.o.Lessons {
		ns = append(ns, strconv.Itoa(l.Number))
	}
	return strings.Join(ns, " ")
}

// enter starts lesson i at step (a fresh shell; earlier steps replayed)
// and says so. The caller holds no lock; enter takes mu.
func (t *Tutor) enter(ctx context.Context, i, step int) (string, error) {
	t.mu.Lock()
	old := t.sess
	t.sess = nil
	t.mu.Unlock()
	if old != nil {
		old.Close()
	}
	l := t.o.Lessons[i]
	var b strings.Builder
	if why := unmet(l); why != "" {
		fmt.Fprintf(&b, "lesson %d (%s) is skipped: %s.\n", l.Number, l.Title, why)
		if i+1 < len(t.o.Lessons) {
			more, err := t.enter(ctx, i+1, 0)
			return b.String() + more, err
		}
		t.mu.Lock()
		t.finished = true
		t.mu.Unlock()
		return b.String() + "That was the last lesson.", nil
	}
	sess := newSession(t.o.NewEngine(), t.o.Kernel, t.relay)
	step = min(max(step, 0), len(l.Steps)-1)
	if err := sess.Prepare(ctx, l, t.o.AllowPrograms); err != nil {
		sess.Close()
		return "", fmt.Errorf("learn: lesson %d's setup: %w", l.Number, err)
	}
	for k := 0; k < step; k++ {
		if err := sess.Solve(ctx, l.Steps[k]); err != nil {
			sess.Close()
			return "", fmt.Errorf("learn: replaying lesson %d step %d to resume: %w", l.Number, k+1, err)
		}
	}
	t.mu.Lock()
	t.sess, t.lesson, t.step, t.hints, t.last, t.finished, t.said = sess, i, step, 0, nil, false, ""
	t.saveLocked()
	t.mu.Unlock()
	fmt.Fprintf(&b, "Lesson %d: %s\n", l.Number, l.Title)
	if step == 0 && l.Intro != "" {
		b.WriteString("\n" + l.Intro + "\n")
	} else if step > 0 {
		fmt.Fprintf(&b, "(resumed: steps 1 to %d were replayed)\n", step)
	}
	b.WriteString("\n" + t.stepText())
	return b.String(), nil
}

// relay passes a lesson's shell's event on to the front end, dropping
// it when the front end is behind, as the shell itself does. An async
// event or a completion may have done the step: the watcher judges it.
func (t *Tutor) relay(ev front.Event) {
	if ev.Kind == front.EventAsync || ev.Kind == front.EventCompletion {
		t.poke()
	}
	t.send(ev)
}

func (t *Tutor) send(ev front.Event) {
	select {
	case t.events <- ev:
	default:
	}
}

func (t *Tutor) saveLocked() {
	t.prog.Lesson, t.prog.Step = t.o.Lessons[t.lesson].Number, t.step
	t.prog.save(t.o.ProgressPath) // progress is a convenience: a read-only home still teaches
}

// stepText is the current step: where it is, and what to do.
func (t *Tutor) stepText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.o.Lessons[t.lesson]
	s := l.Steps[t.step]
	return fmt.Sprintf("Step %d of %d: %s\n%s\n(:hint for a hint, then the solution; :lessons for the list)", t.step+1, len(l.Steps), s.Title, s.Text)
}

// Exec runs a learner's command or a line of the shell, then judges the
// step.
func (t *Tutor) Exec(ctx context.Context, line string) (front.Result, error) {
	t.execMu.Lock()
	defer t.execMu.Unlock()
	t.mu.Lock()
	closed := t.closed
	t.mu.Unlock()
	if closed {
		return front.Result{}, &front.Error{What: "the course is closed", Fix: "start it again: verbscope learn"}
	}
	if strings.HasPrefix(strings.TrimSpace(line), ":") {
		text, err := t.command(ctx, strings.Fields(strings.TrimSpace(line)[1:]))
		return front.Result{Command: line, Text: text}, err
	}
	t.mu.Lock()
	sess, finished := t.sess, t.finished
	t.mu.Unlock()
	if sess == nil {
		return front.Result{}, &front.Error{What: "the course is over or closed", Fix: "`:lessons` lists the lessons; `:lesson N` starts one"}
	}
	res, err := sess.Exec(ctx, line)
	if finished {
		return res, err
	}
	more, jerr := t.judge(ctx)
	if jerr != nil {
		more = "(" + jerr.Error() + ")"
	}
	if more == "" {
		return res, err
	}
	if err != nil {
		// A refusal that finishes a step (lesson 2's RESET→RTR) is the
		// lesson: show it, then the step done.
		return front.Result{Command: line, Text: err.Error() + "\n\n" + more}, nil
	}
	res.Text = strings.TrimLeft(res.Text+"\n\n"+more, "\n")
	return res, nil
}

// judge evaluates the current step; when it holds, it says what just
// happened and moves to the next step (or lesson).
func (t *Tutor) judge(ctx context.Context) (string, error) {
	t.mu.Lock()
	l, s, sess := t.o.Lessons[t.lesson], t.o.Lessons[t.lesson].Steps[t.step], t.sess
	t.mu.Unlock()
	outs, err := sess.Judge(s)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	t.last = outs
	t.mu.Unlock()
	if !passed(outs) {
		return "", nil
	}
	text, err := t.advance(ctx, l, s)
	t.mu.Lock()
	same, next := t.sess == sess, t.o.Lessons[t.lesson].Steps[t.step]
	t.mu.Unlock()
	if err != nil || !same || hasRefusalCheck(next) {
		// A refusal check waits for a refusal of its own, not the one
		// that finished the step before.
		return text, err
	}
	// One command may have done the next step too (connect does a
	// whole walk to RTS).
	more, err := t.judge(ctx)
	if more != "" {
		text += "\n\n" + more
	}
	return text, err
}

func hasRefusalCheck(s Step) bool {
	for _, c := range s.Checks {
		if c.Kind == checkRefusal {
			return true
		}
	}
	return false
}

// advance leaves the current step done and goes on.
func (t *Tutor) advance(ctx context.Context, l Lesson, s Step) (string, error) {
	done := "✓ " + s.Title
	if s.Done != "" {
		done += ": " + s.Done
	}
	t.mu.Lock()
	t.said = done
	if t.step+1 < len(l.Steps) {
		t.step, t.hints, t.last = t.step+1, 0, nil
		t.saveLocked()
		t.mu.Unlock()
		return done + t.briefOr("\n\n"+t.stepText()), nil
	}
	if !t.prog.isDone(l.Number) {
		t.prog.Done = append(t.prog.Done, l.Number)
	}
	next := t.lesson + 1
	t.mu.Unlock()
	done += fmt.Sprintf("\n\nLesson %d is done; everything it created is destroyed.", l.Number)
	if next >= len(t.o.Lessons) {
		t.mu.Lock()
		sess := t.sess
		t.sess, t.finished = nil, true
		t.prog.Lesson, t.prog.Step = 0, 0
		t.prog.save(t.o.ProgressPath)
		t.mu.Unlock()
		sess.Close()
		return done + "\nThat was the last lesson: the course is complete.", nil
	}
	text, err := t.enter(ctx, next, 0)
	if t.o.Brief {
		text, _, _ = strings.Cut(text, "\n")
	}
	return done + "\n\n" + text, err
}

func (t *Tutor) briefOr(text string) string {
	if t.o.Brief {
		return ""
	}
	return text
}
