package cli

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"
)

func init() { register(versionCmd) }

func versionCmd() *Command {
	return &Command{
		Name:    "version",
		Summary: "print verbscope's version and what it was built with",
		Usage:   "",
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("version takes no arguments")
				}
				v := env.Version
				if v == "" {
					v = "devel"
					if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
						v = bi.Main.Version
					}
				}
				fmt.Fprintf(env.Stdout, "verbscope %s (%s, %s/%s, verbs: %s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH, verbsBackend())
				return nil
			}
		},
	}
}
