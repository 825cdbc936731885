package shell

import (
	"fmt"
	"time"

	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// eventBuffer is how many events wait for a front end before the oldest
// is dropped.
const eventBuffer = 256

// Events delivers what happens in the session: async events (while idle
// too: a goroutine per open context watches them), the completions
// commands show, and progress of commands that wait. The shell never
// blocks on it; when the channel is full the oldest event is dropped.
// Close closes it.
func (s *Shell) Events() <-chan front.Event { return s.eventCh }

// emit sends an event without ever blocking: when the buffer is full the
// oldest event makes room.
func (s *Shell) emit(ev front.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if s.eventsClosed {
		return
	}
	for {
		select {
		case s.eventCh <- ev:
			return
		default:
		}
		select {
		case <-s.eventCh:
		default:
		}
	}
}

// progress tells front ends what a waiting command is doing now (listen
// says it listens before the peer comes).
func (s *Shell) progress(object, format string, args ...any) {
	s.emit(front.Event{Kind: front.EventProgress, Object: object, Text: fmt.Sprintf(format, args...)})
}

// watchEvents starts a goroutine that reads a new context's async events
// until the context closes.
func (s *Shell) watchEvents(c *verbs.Context) {
	ch := c.Events()
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		for ev := range ch {
			s.noteEvent(ev)
		}
	}()
}

// noteEvent records an async event under the session's names, for the
// `events` command, for the result of the command running (if any), and
// for front ends. It never waits for the session lock.
func (s *Shell) noteEvent(ev verbs.AsyncEvent) {
	text := ev.String()
	object, qp := s.objs.eventName(ev)
	switch {
	case qp:
		text = fmt.Sprintf("%s on %s (QP %d)", ev.Type, object, ev.QPNum)
	case object != "":
		text = fmt.Sprintf("%s on %s", ev.Type, object)
	}
	rec := eventRecord{at: time.Now(), ev: ev, text: text}
	s.evMu.Lock()
	s.events = append(s.events, rec)
	s.unseen = append(s.unseen, rec)
	s.evMu.Unlock()
	s.emit(front.Event{Time: rec.at, Kind: front.EventAsync, Object: object, Text: text + ": " + ev.Type.Meaning().What})
}

// takeUnseen returns the async events no command result has shown yet.
func (s *Shell) takeUnseen() []eventRecord {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	out := s.unseen
	s.unseen = nil
	return out
}

// allEvents is every async event so far.
func (s *Shell) allEvents() []eventRecord {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	return append([]eventRecord(nil), s.events...)
}
