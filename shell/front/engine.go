package front

import (
	"context"
	"time"
)

// Engine is a verbs shell session as a front end drives it. shell.Shell
// implements it; a pane, the go-prompt shell and the script mode use
// nothing else.
type Engine interface {
	// Exec runs one command (a Line's Text). Cancelling ctx cancels it
	// promptly, including while it waits for a peer or a completion.
	Exec(ctx context.Context, command string) (Result, error)
	// Complete offers what could come at the cursor (a byte offset). It
	// is safe to call while a command runs.
	Complete(line string, cursor int) Completion
	// State is the session's objects as of the last finished command. It
	// never waits for a running command.
	State() State
	// Events delivers what happens in the session, while idle too. The
	// shell never blocks on it: when the channel is full the oldest
	// event is dropped.
	Events() <-chan Event
	// Close destroys every object of the session, QPs first. It is
	// idempotent.
	Close() error
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of Event.
const (
	EventAsync      EventKind = "async"      // an asynchronous event from the device (QP_FATAL, PORT_ACTIVE, …)
	EventCompletion EventKind = "completion" // a work completion the session saw
	EventProgress   EventKind = "progress"   // a running command's progress line ("listening on port 18515")
	EventNotice     EventKind = "notice"     // anything else worth a line
	// EventLesson is the course (learn's Tutor) moving on between
	// commands: a step done by what the device or another program did.
	// Its Text may have several lines.
	EventLesson EventKind = "lesson"
)

// Event is one thing that happened in the session.
type Event struct {
	Time   time.Time
	Kind   EventKind
	Object string // the session's name of the object concerned ("" if none)
	Text   string // one line, using the session's names
}
