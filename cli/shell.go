package cli

import (
	"context"
	"errors"
	"flag"

	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/line"
	"github.com/verbscope/verbscope/shell/transcript"
)

func init() { register("shell", shellCmd) }

func shellCmd() *command {
	return &command{
		Name:    "shell",
		Summary: "the verbs shell: create PDs, CQs, MRs and QPs, step QPs through their states, move data",
		Usage:   "[-f FILE | -c 'CMD; CMD'] [-j|--json [-p|--pretty]] [--keep-going] [--dev DEVICE] [--gid-index N]",
		Help:    helpText("shell"),
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
				return lineStatus(line.Run(ctx, line.Options{
					// The session goes to a transcript a recorder reads
					// (docs/record.md); closing removes it.
					Open: func(face string) front.Engine {
						return transcript.Wrap(shell.New(shell.Options{Device: *dev, GIDIndex: *gidIndex}), face)
					},
					Commands: *cmds, File: *file, In: env.Stdin, Out: env.Stdout, Err: env.Stderr,
					JSON: *asJSON, Pretty: *pretty, KeepGoing: *keepGoing,
				}))
			}
		},
	}
}

// lineStatus passes on the exit status line.Run ended with; it already
// said why.
func lineStatus(err error) error {
	var st line.Status
	if errors.As(err, &st) {
		return exitError{Code: int(st)}
	}
	return err
}
