package cli

import (
	"context"
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/verbscope/verbscope/verbs"
)

func init() { register("version", versionCmd) }

func versionCmd() *command {
	return &command{
		Name:    "version",
		Summary: "print verbscope's version and what it was built with",
		Usage:   "",
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("version takes no arguments")
				}
				fmt.Fprintf(env.Stdout, "verbscope %s (%s, %s/%s, verbs: %s)\n", buildVersion(env), runtime.Version(), runtime.GOOS, runtime.GOARCH, verbs.Backend)
				return nil
			}
		},
	}
}

// buildVersion is the version this binary reports: the one it was given,
// else the module's, else "devel".
func buildVersion(env *Env) string {
	if env.Version != "" {
		return env.Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
