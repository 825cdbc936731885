package line

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/verbscope/verbscope/shell/front"
)

// Options says where Run reads the commands and how it answers them.
type Options struct {
	// Open (required) starts the session Run drives, told its face
	// ("prompt" or "script", as a transcript names it); Run closes it
	// when it ends (Close is idempotent: the caller may close it too).
	Open func(face string) front.Engine
	// Commands (-c) runs these, separated by ';'; File (-f) the commands
	// in this file. With neither, the commands come from In: at the
	// prompt when In is a terminal, as a script otherwise.
	Commands, File string
	In             io.Reader
	Out, Err       io.Writer
	// JSON prints one JSON object per script command (Pretty: indented).
	JSON, Pretty bool
	// KeepGoing goes on after a script's failed command; the run still
	// ends with Failed.
	KeepGoing bool
	// Course runs a course's tutor (verbscope learn --plain): a refused
	// command is part of the lesson, so a script goes on after it, says
	// it on Out among the lesson's text, and ends well.
	Course bool
}

// Status is an ending Run has already explained: the exit status the
// process should end with.
type Status int

// The endings Run returns.
const (
	// Failed: a script's command failed (its error was printed).
	Failed Status = 1
	// Terminated: SIGTERM or SIGHUP ended the prompt; every object of
	// the session was destroyed (128 + SIGTERM, as a shell reports it).
	Terminated Status = 143
)

// Error names the status, for a log; a caller prints nothing more,
// since Run said why.
func (s Status) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Run runs the shell in line mode until the commands end, 'exit', an
// error that stops a script, Ctrl-D at the prompt, or ctx's end. Every
// object of the session is destroyed whatever way it ends.
func Run(ctx context.Context, o Options) error {
	in, isFile := o.In.(*os.File)
	atPrompt := o.Commands == "" && o.File == "" && isFile && term.IsTerminal(int(in.Fd()))
	face := "script"
	if atPrompt {
		face = "prompt"
	}
	sh := o.Open(face)
	defer sh.Close()
	if atPrompt {
		return runPrompt(sh, in, o.Out, o.Err)
	}
	var src io.Reader
	switch {
	case o.Commands != "":
		src = strings.NewReader(o.Commands)
	case o.File != "":
		f, err := os.Open(o.File)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	default:
		src = o.In
	}
	if !o.Course {
		return runScript(ctx, sh, src, o)
	}
	o.KeepGoing, o.Err = true, o.Out
	if err := runScript(ctx, sh, src, o); !errors.Is(err, Failed) {
		return err
	}
	return nil
}
