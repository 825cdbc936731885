package learn

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/verbscope/verbscope/shell/front"
)

// session is one lesson's run on a verbs shell: it runs lines, notes
// what came back (results, and the async events the shell reports
// meanwhile), and judges steps.
type session struct {
	Engine front.Engine
	Kernel Kernel // nil: judge on the shell's State alone
	Seen   seen

	mu       sync.Mutex
	events   []event     // async events so far, from the watcher
	kv       *KernelView // the kernel's view at the last judgement
	done     chan struct{}
	programs []*program // the lesson's background programs
}

// newSession starts watching eng's events: the async ones are kept for
// `expect event` checks, and every one is given to sink (nil: none).
func newSession(eng front.Engine, k Kernel, sink func(front.Event)) *session {
	s := &session{Engine: eng, Kernel: k, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for ev := range eng.Events() {
			if ev.Kind == front.EventAsync {
				typ, _, _ := strings.Cut(ev.Text, " ")
				s.mu.Lock()
				s.events = append(s.events, event{Type: strings.TrimSuffix(typ, ":"), Object: ev.Object})
				s.mu.Unlock()
			}
			if sink != nil {
				sink(ev)
			}
		}
	}()
	return s
}

// Close closes the shell, which destroys what the lesson created, and
// waits for the event watcher to end.
func (s *session) Close() error {
	s.endPrograms()
	err := s.Engine.Close()
	<-s.done
	return err
}

// Exec runs one command and notes its outcome.
func (s *session) Exec(ctx context.Context, line string) (front.Result, error) {
	res, err := s.Engine.Exec(ctx, line)
	res.Command = line
	s.Seen.observe(res, err)
	return res, err
}

// Judge evaluates a step's checks now.
func (s *session) Judge(st Step) ([]outcome, error) {
	state := s.Engine.State()
	s.mu.Lock()
	s.Seen.Events = append(s.Seen.Events[:0], s.events...)
	s.mu.Unlock()
	var kv *KernelView
	if s.Kernel != nil {
		var err error
		if kv, err = s.Kernel.View(state.PID); err != nil {
			return nil, fmt.Errorf("learn: read the kernel's objects (RDMA netlink): %w", err)
		}
	}
	s.mu.Lock()
	s.kv = kv
	s.mu.Unlock()
	return evaluateAll(st.Checks, state, &s.Seen, kv), nil
}

// Solve runs a step's solution: each line must run, and each line
// marked refused must be refused by the shell (a what/why/fix *Error).
// It stops at the first line that does otherwise and says which.
func (s *session) Solve(ctx context.Context, st Step) error { return s.Run(ctx, st.Solution) }

// Run runs solution or setup lines, as Solve does.
func (s *session) Run(ctx context.Context, lines []Line) error {
	for _, sol := range lines {
		for _, l := range front.Lines(sol.Text) {
			_, err := s.Exec(ctx, l.Text)
			var fe *front.Error
			switch {
			case ctx.Err() != nil:
				return ctx.Err()
			case sol.Refused && err == nil:
				return fmt.Errorf("%q ran, but the lesson expects the shell to refuse it", l.Text)
			case sol.Refused && !errors.As(err, &fe):
				return fmt.Errorf("%q failed without the shell's explanation: %v", l.Text, err)
			case !sol.Refused && err != nil:
				return fmt.Errorf("%q failed: %v", l.Text, err)
			}
		}
	}
	return nil
}
