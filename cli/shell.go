package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/verbscope/verbscope/internal/syncio"
	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/transcript"
)

func init() { register("shell", shellCmd) }

func shellCmd() *command {
	return &command{
		Name:    "shell",
		Summary: "the verbs shell: create PDs, CQs, MRs and QPs, step QPs through their states, move data",
		Usage:   "[-f FILE | -c 'CMD; CMD'] [-j|--json [-p|--pretty]] [--keep-going] [--dev DEVICE] [--gid-index N]",
		Help: `On a terminal, an interactive prompt with completion of commands,
object names, states and attributes (Tab), and history kept across runs
(in $XDG_STATE_HOME/verbscope/history). Type 'help' inside for the
commands and 'help COMMAND' for examples.

With -f FILE, -c 'commands', or commands on stdin when it is not a
terminal, the shell runs them in order, echoing each, and stops at the
first error with exit status 1 (--keep-going goes on and exits 1 at the
end if anything failed). -j (--json) prints one JSON object per command
({"command", "line", "result"} or {"command", "line", "error",
"refusal": {"what", "why", "fix"}}); -p (--pretty) indents it.

Whatever way it ends (end of input, exit, an error, Ctrl-C, SIGTERM),
every object the shell created is destroyed, QPs first.

Examples:
  verbscope shell
  verbscope shell -c 'open; pd; cq; qp type=rc; modify qp1 init port=1'
  verbscope shell -f pingpong.vs --json`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			file := fs.String("f", "", "run the commands in `file`")
			cmds := fs.String("c", "", "run these `commands` (separated by ;)")
			asJSON := fs.Bool("json", false, "print one JSON object per command")
			fs.BoolVar(asJSON, "j", false, "short for --json")
			pretty := fs.Bool("pretty", false, "with --json: indent the JSON")
			fs.BoolVar(pretty, "p", false, "short for --pretty")
			keepGoing := fs.Bool("keep-going", false, "in a script, go on after a failed command")
			dev := fs.String("dev", "", "default `device` for open (default the first device)")
			gidIndex := fs.Int("gid-index", 0, "source GID `index` of RoCE address vectors (0: the RoCE v2 GID of an IPv4 address on the port)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("unexpected argument %q (commands go in -c or -f)", args[0])
				}
				if *file != "" && *cmds != "" {
					return usageErrorf("give -f or -c, not both")
				}
				if *gidIndex < 0 {
					return usageErrorf("--gid-index %d: an index into the port's GID table is 0 or more", *gidIndex)
				}
				in, isFile := env.Stdin.(*os.File)
				prompt := *cmds == "" && *file == "" && isFile && term.IsTerminal(int(in.Fd()))
				// The session goes to a transcript a recorder reads
				// (docs/record.md); closing removes it.
				face := "script"
				if prompt {
					face = "prompt"
				}
				sh := transcript.Wrap(shell.New(shell.Options{Device: *dev, GIDIndex: *gidIndex}), face)
				defer sh.Close()
				script := scriptOptions{json: *asJSON, pretty: *pretty, keepGoing: *keepGoing, out: env.Stdout, errw: env.Stderr}
				switch {
				case *cmds != "":
					return runScript(ctx, sh, strings.NewReader(*cmds), script)
				case *file != "":
					f, err := os.Open(*file)
					if err != nil {
						return err
					}
					defer f.Close()
					return runScript(ctx, sh, f, script)
				case prompt:
					return runPrompt(sh, in, env)
				}
				return runScript(ctx, sh, env.Stdin, script)
			}
		},
	}
}

type scriptOptions struct {
	json, pretty, keepGoing bool
	out, errw               io.Writer
}

// runScript runs commands line by line: each echoed, its result printed,
// stopping at the first error unless keepGoing. front.Lines splits each
// input line (';', comments, exit), so a script, -c and a paste into the
// prompt mean the same.
func runScript(ctx context.Context, sh front.Engine, r io.Reader, o scriptOptions) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	failedAny := false
	lineNo := 0
	var inCommand atomic.Bool
	// Progress lines come from another goroutine: one lock for stderr.
	o.errw = syncio.NewWriter(o.errw)
	go printProgress(sh.Events(), &inCommand, o.errw)
	enc := json.NewEncoder(o.out)
	if o.pretty {
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
			if !o.json {
				fmt.Fprintf(o.out, "> %s\n", l.Text)
			}
			inCommand.Store(true)
			res, err := sh.Exec(ctx, l.Text)
			inCommand.Store(false)
			if o.json {
				enc.Encode(scriptRecord(l.Text, lineNo, res, err))
			} else if err == nil && res.Text != "" {
				fmt.Fprintln(o.out, res.Text)
			}
			if err != nil {
				if !o.json {
					fmt.Fprintf(o.errw, "line %d: %v\n", lineNo, err)
				}
				if ctx.Err() != nil {
					// Interrupted (SIGINT/SIGTERM): the caller's deferred
					// Close destroys every object.
					return ctx.Err()
				}
				failedAny = true
				if !o.keepGoing {
					return exitError{Code: 1}
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
		return exitError{Code: 1}
	}
	return nil
}
