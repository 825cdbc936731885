package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("irqs", irqsCmd) }

func irqsCmd() *command {
	return &command{
		Name:          "irqs",
		Summary:       "show each RDMA device's interrupts: per-CPU counts or rates, affinity, NUMA node",
		Usage:         "[flags] [DEV | dev DEV]",
		Help:          irqsHelp,
		FlagsAnywhere: true,
		Setup:         irqsSetup,
	}
}

// irqsSetup declares the flags of `verbscope irqs` and returns the
// command.
func irqsSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	o := addViewFlags(fs)
	interval := addIntervalFlag(fs, "read twice this `long` apart and show interrupts per second")
	return func(ctx context.Context, args []string) error {
		flt, f, err := o.openWords("irqs", args)
		if err != nil {
			return err
		}
		first, snap, err := readTwice(ctx, env, "interrupts", *interval, f.IRQs)
		if err != nil {
			return err
		}
		var rates []sysfsmon.IRQRate
		if first != nil {
			if rates, err = sysfsmon.IRQRates(first, snap); err != nil {
				return err
			}
		}
		warn(env, "irqs", snap.Warnings)
		var rows []view.Row
		printed := 0
		for i := range snap.Devices {
			d := &snap.Devices[i]
			devRates := d.RatesOf(rates)
			row := d.Row(snap.CPUs, nil, devRates)
			if !flt.Match(row) {
				continue
			}
			warn(env, "irqs", d.Warnings)
			var vectors *int
			if liveVerbs(f) {
				if n, err := numCompVectors(d.Device); err == nil {
					vectors = &n
				} else {
					fmt.Fprintf(env.Stderr, "verbscope irqs: warning: %s: num_comp_vectors: %v\n", d.Device, err)
				}
			}
			if o.json {
				rows = append(rows, d.Row(snap.CPUs, vectors, devRates))
				printed++
				continue
			}
			if printed > 0 {
				fmt.Fprintln(env.Stdout)
			}
			printed++
			if err := d.WriteText(env.Stdout, snap.CPUs, vectors, devRates, *interval > 0); err != nil {
				return err
			}
		}
		sayNoMatch(env, "irqs", "device", printed, flt)
		if o.json {
			return view.WriteRowsJSON(env.Stdout, rows, o.pretty)
		}
		return nil
	}
}

// irqsHelp is the text of `verbscope irqs --help` after the flags.
var irqsHelp = helpText("irqs")
