package front

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/rdma"
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

// State is an immutable snapshot of a session, taken after each command.
type State struct {
	Seq     uint64   // increases with every snapshot
	PID     int      // the process that owns the objects
	Running string   // the command running now; "" when idle
	Objects []Object // in creation order
}

// Object is one verbs object of the session, named as the shell names it.
type Object struct {
	Kind   rdma.Kind // ctx pd cq ch qp mr ah: the shared vocabulary's kinds (rdma.KindQP, …)
	Name   string    // qp1, mr2, …
	Parent string    // the object it was created under ("" for a ctx)
	Device string    // the device of its context
	Port   int       // the port it is bound to, once known (QPs, AHs)

	// QPs.
	QPN            uint32
	QPType, State  string
	SendCQ, RecvCQ string

	// CQs: the entries the device gave (at least those asked for).
	CQE int

	// MRs.
	Addr, Length uint64
	LKey, RKey   uint32
	Access       string

	History []Transition // QPs: successful modifies, oldest first
	Next    []Step       // QPs: a modify to every state, judged by the kernel's rules
}

// Transition is one successful modify of a QP.
type Transition struct {
	At       time.Time
	From, To string
}

// Step says whether a modify to state To is legal now, which attributes
// it needs, and if not, why.
type Step struct {
	To    string
	Legal bool
	Needs []string // attributes the kernel requires for this step
	Why   string   // when not legal: the reason, in words
}

// EventKind says what an Event reports.
type EventKind string

// The kinds of Event.
const (
	EventAsync      EventKind = "async"      // an asynchronous event from the device (QP_FATAL, PORT_ACTIVE, …)
	EventCompletion EventKind = "completion" // a work completion the session saw
	EventProgress   EventKind = "progress"   // a running command's progress line ("listening on port 18515")
	EventNotice     EventKind = "notice"     // anything else worth a line
)

// Event is one thing that happened in the session.
type Event struct {
	Time   time.Time
	Kind   EventKind
	Object string // the session's name of the object concerned ("" if none)
	Text   string // one line, using the session's names
}
