package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/verbscope/verbscope/diagnose"
)

func init() { register("diagnose", diagnoseCmd) }

func diagnoseCmd() *command {
	return &command{
		Name:          "diagnose",
		Summary:       "why is this QP stuck? a verdict for every stuck or failed QP: the cause, the evidence, the fix, and the peer's side",
		Usage:         "[DEV/QPN] [-j] [--readings N] [--interval D] [--peers URL,...] [--prometheus URL] [--peer-auth FILE] [--peer-ca FILE]",
		Help:          helpText("diagnose"),
		FlagsAnywhere: true,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			jsonOut := fs.Bool("j", false, "print a JSON list of verdicts")
			readings := fs.Int("readings", diagnose.DefaultReadings, "take `N` readings")
			interval := fs.Duration("interval", diagnose.DefaultInterval, "`duration` between two readings")
			pf := addPeerFlags(fs, nil)
			return func(ctx context.Context, args []string) error {
				if len(args) > 1 {
					return usageErrorf("diagnose takes at most one QP, as DEV/QPN")
				}
				if *readings < 2 {
					return usageErrorf("--readings %d: at least 2 (a stall shows only between readings)", *readings)
				}
				if *interval < 100*time.Millisecond {
					return usageErrorf("--interval %v is too short: at least 100ms", *interval)
				}
				o := diagnose.RunOptions{Readings: *readings, Interval: *interval}
				if len(args) == 1 {
					k, err := diagnose.ParseQP(args[0])
					if err != nil {
						return usageErrorf("%s", strings.TrimPrefix(err.Error(), "diagnose: "))
					}
					o.Only = &k
				}
				peers, err := pf.open()
				if err != nil {
					return err
				}
				o.Peers = peers
				return runDiagnose(ctx, env, o, *jsonOut)
			}
		},
	}
}

func runDiagnose(ctx context.Context, env *Env, o diagnose.RunOptions, jsonOut bool) error {
	o.Progress = func(i, n int) {
		fmt.Fprintf(env.Stderr, "\rdiagnose: reading %d of %d, every %v ", i, n, o.Interval)
		if i == n {
			fmt.Fprintln(env.Stderr)
		}
	}
	vs, err := diagnose.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(env.Stderr)
		return err
	}
	if jsonOut {
		err = diagnose.WriteJSON(env.Stdout, vs)
	} else {
		err = diagnose.WriteText(env.Stdout, vs, o.Only)
	}
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		return exitError{Code: 3}
	}
	return nil
}
