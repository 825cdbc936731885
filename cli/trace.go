package cli

import (
	"context"
	"flag"

	"github.com/verbscope/verbscope/trace"
	"github.com/verbscope/verbscope/verbs"
)

func init() { register("trace", traceCmd) }

func traceCmd() *command {
	return &command{
		Name:    "trace",
		Summary: "every process's verbs control calls, live, from the kernel (eBPF): creates, modifies with their attributes, destroys, errors",
		Usage:   "[-j] [-n COUNT] [pid=N] [comm=NAME] [qpn=N] [dev=NAME]",
		Help:    helpText("trace"),
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			jsonOut := fs.Bool("j", false, "print one JSON object per event")
			count := fs.Int("n", 0, "stop after `count` events (0: until interrupted)")
			record := fs.String("record", "", "also save every raw event to `file` (hex lines, for bug reports and tests; a new file, mode 0600)")
			force := fs.Bool("force", false, "with --record: replace the file if it exists")
			return func(ctx context.Context, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				filter, err := trace.ParseFilter(args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				return trace.Run(ctx, trace.RunOptions{Filter: filter, Env: trace.CachedEnv(verbs.DeviceCheckEnv), JSON: *jsonOut, Count: *count,
					RecordPath: *record, Force: *force}, env.Stdout, env.Stderr)
			}
		},
	}
}
