package line

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/verbscope/verbscope/internal/syncio"
	"github.com/verbscope/verbscope/shell/front"
)

// runScript runs commands line by line: each echoed, its result printed,
// stopping at the first error unless o.KeepGoing. front.Lines splits each
// input line (';', comments, exit), so a script, -c and a paste into the
// prompt mean the same.
func runScript(ctx context.Context, sh front.Engine, r io.Reader, o Options) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	failedAny := false
	lineNo := 0
	var inCommand atomic.Bool
	// Progress lines come from another goroutine: one lock for stderr.
	o.Err = syncio.NewWriter(o.Err)
	go printProgress(sh.Events(), &inCommand, o.Err)
	enc := json.NewEncoder(o.Out)
	if o.Pretty {
		enc.SetIndent("", "  ")
	}
	for sc.Scan() {
		lineNo++
		for _, l := range front.Lines(sc.Text()) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if l.Exit {
				return exitStatus(failedAny)
			}
			if !o.JSON {
				fmt.Fprintf(o.Out, "> %s\n", l.Text)
			}
			inCommand.Store(true)
			res, err := sh.Exec(ctx, l.Text)
			inCommand.Store(false)
			if o.JSON {
				enc.Encode(scriptRecord(l.Text, lineNo, res, err))
			} else if err == nil && res.Text != "" {
				fmt.Fprintln(o.Out, res.Text)
			}
			if err != nil {
				if !o.JSON {
					fmt.Fprintf(o.Err, "line %d: %v\n", lineNo, err)
				}
				if ctx.Err() != nil {
					// Interrupted (SIGINT/SIGTERM): Run's deferred
					// Close destroys every object.
					return ctx.Err()
				}
				failedAny = true
				if !o.KeepGoing {
					return Failed
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return exitStatus(failedAny)
}

// scriptRecord is one command's --json line: the command, its input line,
// and its result or its error (rendered, and What/Why/Fix apart).
func scriptRecord(cmd string, line int, res front.Result, err error) map[string]any {
	rec := map[string]any{"command": cmd, "line": line}
	var fe *front.Error
	switch {
	case errors.As(err, &fe):
		rec["error"] = err.Error()
		detail := map[string]string{"what": fe.What}
		for k, v := range map[string]string{"output": fe.Output, "why": fe.Why, "fix": fe.Fix} {
			if v != "" {
				detail[k] = v
			}
		}
		rec["refusal"] = detail
	case err != nil:
		rec["error"] = err.Error()
	case res.Data != nil:
		rec["result"] = res.Data
	}
	return rec
}

// printProgress shows the progress lines of a running command as they
// come ("listening on TCP port 18515" before the peer connects), on w
// (the script's stderr, or the terminal). At the prompt go-prompt owns
// the screen: async events that arrive then are shown with the next
// command's result, where the shell adds them. The course's steps done
// between commands (verbscope learn: the kernel or another program did
// them) are shown when they come: the learner is waiting for them.
func printProgress(events <-chan front.Event, inCommand *atomic.Bool, w io.Writer) {
	for ev := range events {
		switch {
		case ev.Kind == front.EventProgress && inCommand.Load():
			fmt.Fprintf(w, "… %s\n", ev.Text)
		case ev.Kind == front.EventLesson:
			fmt.Fprintf(w, "\n%s\n", ev.Text)
		}
	}
}

func exitStatus(failed bool) error {
	if failed {
		return Failed
	}
	return nil
}
