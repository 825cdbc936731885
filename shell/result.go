package shell

import (
	"errors"
	"fmt"
	"strings"
)

// Result is what one command produced: text for people and data for
// --json. The shell never prints; front ends decide.
type Result struct {
	Command string `json:"command"`          // the command as typed
	Text    string `json:"-"`                // rendering for people
	Data    any    `json:"result,omitempty"` // structured, for scripts
}

// Error is a command the shell refused or the library failed, worded for
// a learner: what went wrong, why, and what to do about it.
type Error struct {
	What string // what failed, one line
	Why  string // why, in words (may be several lines)
	Fix  string // what to do next
	Err  error  // the library error underneath, if any (errno stays reachable)
}

// Error renders what, why and fix on separate lines.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.What)
	if e.Why != "" {
		b.WriteString("\n  why: " + strings.ReplaceAll(e.Why, "\n", "\n       "))
	}
	if e.Fix != "" {
		b.WriteString("\n  fix: " + strings.ReplaceAll(e.Fix, "\n", "\n       "))
	}
	return b.String()
}

// Unwrap returns the library error underneath, if any.
func (e *Error) Unwrap() error { return e.Err }

// usageErr is a mistake in how a command was written.
func usageErr(cmd *command, format string, args ...any) *Error {
	return &Error{What: fmt.Sprintf(format, args...), Fix: fmt.Sprintf("usage: %s   (help %s shows examples)", cmd.usage, cmd.name)}
}

// failed wraps a library error: the verbs error already says which call
// failed and usually why; the shell adds which command it was.
func failed(what string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	return &Error{What: what + ": " + err.Error(), Err: err}
}
