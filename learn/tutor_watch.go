package learn

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/shell/front"
)

// defaultRecheck is how often the tutor judges the current step again
// between commands.
const defaultRecheck = time.Second

// Some outcomes arrive without a command: the kernel moves a QP to ERR,
// the device raises an async event, a lesson's background program makes
// or loses objects. The tutor's watcher judges the current step again
// when the lesson's shell reports an event and every Recheck, and when
// the step is done it says so as a front.EventLesson on Events, which
// the line shell prints and the dashboard shows (re-reading Status).

// watch runs until ctx ends (Close): it judges the step on each wake.
func (t *Tutor) watch(ctx context.Context, every time.Duration) {
	defer close(t.watched)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-t.wake:
		}
		text, err := t.recheck(ctx)
		if err != nil {
			text = "(" + err.Error() + ")"
		}
		if text != "" {
			t.send(front.Event{Time: time.Now(), Kind: front.EventLesson, Text: text})
		}
	}
}

// poke asks the watcher to judge the step again soon, without waiting.
func (t *Tutor) poke() {
	select {
	case t.wake <- struct{}{}:
	default:
	}
}

// recheck judges the current step now, between commands, and when it
// holds moves on as a command would, returning what it says then ("" when
// the step is not done). It never waits for a running command: that
// command judges the step itself when it ends. Steps whose checks only a
// command can change are left alone, and the marks of a step not judged
// yet stay unset, so the pane's marks still start at the learner's first
// command.
func (t *Tutor) recheck(ctx context.Context) (string, error) {
	if !t.execMu.TryLock() {
		return "", nil
	}
	defer t.execMu.Unlock()
	t.mu.Lock()
	sess, closed, finished := t.sess, t.closed, t.finished
	var s Step
	if sess != nil {
		s = t.o.Lessons[t.lesson].Steps[t.step]
	}
	judged := t.last != nil
	t.mu.Unlock()
	if closed || finished || sess == nil || !changesAlone(s) {
		return "", nil
	}
	outs, err := sess.Judge(s)
	if err != nil || !passed(outs) {
		if err == nil && judged {
			t.mu.Lock()
			if t.sess == sess {
				t.last = outs
			}
			t.mu.Unlock()
		}
		return "", err
	}
	return t.judge(ctx)
}

// changesAlone reports whether a step's outcome can come without a
// command: a check looks at the kernel's QP states, objects counted by
// the kernel, or async events. (Completions polled and doctor's verdicts
// come with commands, but a step may wait for them and for the kernel
// together: a completion polled, then the peer's objects gone.) A step
// that waits for a refusal waits for a command's own refusal, not the
// one that ended the step before.
func changesAlone(s Step) bool {
	alone := false
	for _, c := range s.Checks {
		switch c.Kind {
		case checkRefusal:
			return false
		case checkEvent, checkCount:
			alone = true
		case checkObject:
			for _, a := range c.Attrs {
				alone = alone || a.Key == "state"
			}
		}
	}
	return alone
}
