package front

import "strings"

// Suggestion is one completion candidate: the text to insert and a short
// description shown next to it.
type Suggestion struct {
	Text        string `json:"text"`
	Description string `json:"description,omitempty"`
}

// Completion is what Complete offers: candidates for the byte range
// [Start, End) of the line, which the chosen one replaces.
type Completion struct {
	Start, End int
	Items      []Suggestion
}

// Result is what one command produced: text for people and data for
// --json. The shell never prints; front ends decide.
type Result struct {
	Command string `json:"command"`          // the command as typed
	Text    string `json:"-"`                // rendering for people
	Data    any    `json:"result,omitempty"` // structured, for scripts
}

// Error is a command the shell refused or the library failed, worded for
// a learner: what went wrong, why, and what to do about it. The three are
// kept apart so a front end can lay them out (a pane may colour Why and
// Fix); Error() renders them for a terminal.
type Error struct {
	// Output is what the command did or chose before it failed (the
	// values next picked, the steps listen took), shown before What.
	Output string
	What   string // what failed, one line
	Why    string // why, in words (may be several lines)
	Fix    string // what to do next
	Err    error  // the library error underneath, if any (errno stays reachable)
}

// Error renders the output, then what, why and fix on separate lines.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Output != "" {
		b.WriteString(strings.TrimRight(e.Output, "\n") + "\n")
	}
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
