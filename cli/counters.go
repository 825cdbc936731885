package cli

import (
	"context"
	"flag"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("counters", countersCmd) }

func countersCmd() *command {
	return &command{
		Name:          "counters",
		Summary:       "show port and device counters (counters/, hw_counters/), with rates over an interval",
		Usage:         "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [group counters|hw_counters] [name SUBSTRING]",
		Help:          countersHelp,
		FlagsAnywhere: true,
		Setup:         countersSetup,
	}
}

// countersSetup declares the flags of `verbscope counters` and returns the
// command.
func countersSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	o := addViewFlags(fs)
	interval := addIntervalFlag(fs, "read twice this `long` apart and show deltas and rates")
	onlyErr := fs.Bool("errors", false, "only error counters")
	nonzero := fs.Bool("nonzero", false, "only counters that are not 0 (or, with --interval, that moved)")
	return func(ctx context.Context, args []string) error {
		flt, f, err := o.openWords("counters", args)
		if err != nil {
			return err
		}
		first, snap, err := readTwice(ctx, env, "counters", *interval, f.Counters)
		if err != nil {
			return err
		}
		rates, err := sysfsmon.CounterRates(first, snap) // values alone without --interval
		if err != nil {
			return err
		}
		warn(env, "counters", snap.Warnings)
		rows := sysfsmon.CounterRows(rates, flt, *interval > 0, *onlyErr, *nonzero)
		var flags []string
		if *onlyErr {
			flags = append(flags, "--errors")
		}
		if *nonzero {
			flags = append(flags, "--nonzero")
		}
		sayNoMatch(env, "counters", "counter", len(rows), flt, flags...)
		return view.WriteRows(env.Stdout, rows, o.json, o.pretty)
	}
}

// countersHelp is the text of `verbscope counters --help` after the flags.
var countersHelp = helpText("counters")
