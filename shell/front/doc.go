// Package front is what a front end needs to host the verbs shell: the
// Engine interface the shell implements, the values it returns (Result,
// Error, Completion, State, Event), how typed or pasted input becomes
// commands (Lines, by the quoting Scan reads) and the history a prompt
// navigates (History).
//
// It is pure Go and imports neither cgo nor the shell itself, so the
// dashboard, which must not import cgo packages, can render a shell pane
// against it; the go-prompt shell and the script mode use the same
// functions, so splitting, exit and history exist once.
package front
