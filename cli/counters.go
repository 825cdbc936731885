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
		flt, err := parseWords("counters", args)
		if err != nil {
			return err
		}
		f, err := o.openChecked(flt)
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
const countersHelp = `Reads counters/ (the IBTA PortCounters; rxe has none) and hw_counters/ (the
driver's own) of every port, and the device-level hw_counters/ (port 0).
With --interval it reads twice and shows the change and the rate per second.
The MEANING column says what each counter counts, from verbscope's counter
registry for the device's driver (docs/counters.md lists it; the shell's
"explain COUNTER" says more); a counter the registry does not know is shown
as unknown. Counters whose rise is trouble (the registry's error and drop
classes, and anything terminal: symbol_error, link_downed, out_of_buffer,
req_remote_invalid_request, retry_exceeded_err...) are marked with ! in the
ERR column; retries are not (mlx5's rnr_nak_retry_err and rxe's rcvd_rnr_err
count RNR NAKs that were retried). A counter the kernel cannot read ("N/A
(no PMA)": the port has no performance agent) is shown n/a, with one note
per folder. Deltas of 32-bit counters (mlx5's queue counters) are correct
across a wrap.
Values and rates are shown in their unit: data counters in bytes with SI
prefixes (port_xmit_data and port_rcv_data count 4-byte words, as the
IBTA defines: shown converted), packet counters in packets, the rest as
counts.

JSON keys (-j, an array, one object per counter): dev, port (0: device
level), group ("counters" or "hw_counters"), name, value (as the kernel
counts it; null when unavailable), error, driver (the registry's name of
the device's driver), unavailable (true when the kernel cannot read it),
unit ("bytes", "packets" or "events"), bytes (data counters: the value in
bytes); with --interval also delta, rate (counts per second), reset (the
value went down and was no wrap) and byte_rate (bytes per second); then
meaning (null when unknown), known (whether the registry knows it), and
for a known counter class (traffic, error, retry, congestion, drop,
other), side (requester, responder, port, device), terminal (a rise means
a request failed for good), bits (its width, where the kernel says) and
signal (rnr, timeout_retry, retry_exceeded, ... for a diagnosis).
` + viewHelpJSON + `

Examples:
  verbscope counters
  verbscope counters --interval 1s dev rxe0
  verbscope counters rxe0/1 name err -j
  verbscope counters --errors --nonzero
  verbscope counters -j --interval 2s | jq '.[] | select(.name == "sent_pkts") | .rate'`
