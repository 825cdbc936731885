package shell

import (
	"errors"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// The values the shell returns are front's, so a front end that must not
// import cgo code (the dashboard) holds the same types.
type (
	// Result is what one command produced (front.Result).
	Result = front.Result
	// Error is a refusal or a library failure, What/Why/Fix kept apart
	// (front.Error).
	Error = front.Error
	// Suggestion is one completion candidate (front.Suggestion).
	Suggestion = front.Suggestion
	// Completion is what Complete offers (front.Completion).
	Completion = front.Completion
)

// usageErr is a mistake in how a command was written.
func usageErr(cmd *command, format string, args ...any) *Error {
	return &Error{What: fmt.Sprintf(format, args...), Fix: fmt.Sprintf("usage: %s   (help %s shows examples)", cmd.usage, cmd.name)}
}

// failed wraps a library error: the verbs error already says which call
// failed and usually why; the shell adds which command it was, and keeps
// the library's hint apart as the why.
func failed(what string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		return err
	}
	var ve *verbs.Error
	if errors.As(err, &ve) && ve.Hint != "" {
		call := strings.TrimSuffix(strings.TrimPrefix(ve.Error(), "verbs: "), " ("+ve.Hint+")")
		return &Error{What: what + ": " + call, Why: ve.Hint, Err: err}
	}
	return &Error{What: what + ": " + err.Error(), Err: err}
}
