package cli

import (
	"context"
	"flag"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

func init() { register("counters", countersCmd) }

func countersCmd() *Command {
	return &Command{
		Name:    "counters",
		Summary: "show port and device counters (counters/, hw_counters/), with rates over an interval",
		Usage:   "[flags] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [port N] [group counters|hw_counters] [name SUBSTRING]",
		Help: `Reads counters/ (the IBTA PortCounters; rxe has none) and hw_counters/ (the
driver's own) of every port, and the device-level hw_counters/ (port 0).
With --interval it reads twice and shows the change and the rate per second.
Error counters (symbol_error, *_err, discards, retry_exceeded, link_downed,
out_of_sequence, out_of_buffer...) are marked with ! in the ERR column.
Values and rates are shown in their unit: data counters in bytes with SI
prefixes (port_xmit_data and port_rcv_data count 4-byte words, as the
IBTA defines: shown converted), packet counters in packets, the rest as
counts.

JSON keys (-j, an array, one object per counter): dev, port (0: device
level), group ("counters" or "hw_counters"), name, value (as the kernel
counts it), error, unit ("bytes", "packets" or "events"), bytes (data
counters: the value in bytes); with --interval also delta, rate (counts
per second), reset (the value went down) and byte_rate (bytes per
second).
` + viewHelpJSON + `

Examples:
  verbscope counters
  verbscope counters --interval 1s dev rxe0
  verbscope counters rxe0/1 name err -j
  verbscope counters --errors --nonzero
  verbscope counters -j --interval 2s | jq '.[] | select(.name == "sent_pkts") | .rate'`,
		FlagsAnywhere: true,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			interval := addIntervalFlag(fs, "read twice this `long` apart and show deltas and rates")
			onlyErr := fs.Bool("errors", false, "only error counters")
			nonzero := fs.Bool("nonzero", false, "only counters that are not 0 (or, with --interval, that moved)")
			return func(ctx context.Context, args []string) error {
				flt, err := parseWords("counters", args)
				if err != nil {
					return err
				}
				f, _, err := o.openChecked(flt)
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
				var rows []view.Row
				for i := range rates {
					r := &rates[i]
					if (*onlyErr && !r.Error) || (*nonzero && ((*interval > 0 && r.Delta == 0 && !r.Reset) || (*interval == 0 && r.Value == 0))) {
						continue
					}
					if row := r.Row(*interval > 0); flt.Match(row) {
						rows = append(rows, row)
					}
				}
				var flags []string
				if *onlyErr {
					flags = append(flags, "--errors")
				}
				if *nonzero {
					flags = append(flags, "--nonzero")
				}
				sayNoMatch(env, "counters", "counter", len(rows), flt, flags...)
				if o.json {
					return writeRowsJSON(env.Stdout, rows, o.pretty, true)
				}
				return writeTable(env.Stdout, "", rows)
			}
		},
	}
}
