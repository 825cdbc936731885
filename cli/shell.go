package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/verbscope/verbscope/shell"
)

func init() { register(shellCmd) }

func shellCmd() *Command {
	return &Command{
		Name:    "shell",
		Summary: "the verbs shell: create PDs, CQs, MRs and QPs, step QPs through their states, move data",
		Usage:   "[-f FILE | -c 'CMD; CMD'] [--json] [--keep-going] [--dev DEVICE]",
		Help: `On a terminal, an interactive prompt with completion of commands,
object names, states and attributes (Tab), and history kept across runs
(in $XDG_STATE_HOME/verbscope/history). Type 'help' inside for the
commands and 'help COMMAND' for examples.

With -f FILE, -c 'commands', or commands on stdin when it is not a
terminal, the shell runs them in order, echoing each, and stops at the
first error with exit status 1 (--keep-going goes on and exits 1 at the
end if anything failed). --json prints one JSON object per command.

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
			keepGoing := fs.Bool("keep-going", false, "in a script, go on after a failed command")
			dev := fs.String("dev", os.Getenv("LAB_DEV"), "default `device` for open (default $LAB_DEV or the first device)")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("unexpected argument %q (commands go in -c or -f)", args[0])
				}
				if *file != "" && *cmds != "" {
					return usageErrorf("give -f or -c, not both")
				}
				sh := shell.New(shell.Options{Device: *dev, GIDIndex: envInt("LAB_GID_INDEX", 0)})
				defer sh.Close()
				script := scriptOptions{json: *asJSON, keepGoing: *keepGoing, out: env.Stdout, errw: env.Stderr}
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
				}
				in, isFile := env.Stdin.(*os.File)
				if !isFile || !term.IsTerminal(int(in.Fd())) {
					return runScript(ctx, sh, env.Stdin, script)
				}
				return runPrompt(sh, in, env)
			}
		},
	}
}

type scriptOptions struct {
	json, keepGoing bool
	out, errw       io.Writer
}

// runScript runs commands line by line: each echoed, its result printed,
// stopping at the first error unless keepGoing.
func runScript(ctx context.Context, sh *shell.Shell, r io.Reader, o scriptOptions) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	failedAny := false
	lineNo := 0
	enc := json.NewEncoder(o.out)
	for sc.Scan() {
		lineNo++
		for _, cmd := range shell.Split(sc.Text()) {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if isExit(cmd) {
				return exitStatus(failedAny)
			}
			if !o.json {
				fmt.Fprintf(o.out, "> %s\n", cmd)
			}
			res, err := sh.Exec(ctx, cmd)
			if o.json {
				rec := map[string]any{"command": cmd, "line": lineNo}
				if err != nil {
					rec["error"] = err.Error()
				} else if res.Data != nil {
					rec["result"] = res.Data
				}
				enc.Encode(rec)
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
					return ExitError{Code: 1}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return exitStatus(failedAny)
}

func exitStatus(failed bool) error {
	if failed {
		return ExitError{Code: 1}
	}
	return nil
}

func isExit(cmd string) bool {
	c := strings.TrimSpace(cmd)
	return c == "exit" || c == "quit"
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(os.Getenv(name), &n); err != nil {
		return def
	}
	return n
}
