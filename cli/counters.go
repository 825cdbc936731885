package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

func init() { register(countersCmd) }

func countersCmd() *Command {
	return &Command{
		Name:    "counters",
		Summary: "show port and device counters (counters/, hw_counters/), with rates over an interval",
		Usage:   "[flags] [dev NAME] [port N] [name SUBSTRING]",
		Help: `Reads counters/ (the IBTA PortCounters; rxe has none) and hw_counters/ (the
driver's own) of every port, and the device-level hw_counters/ (port 0).
With --interval it reads twice and shows the change and the rate per second.
Error counters (symbol_error, *_err, discards, retry_exceeded, link_downed,
out_of_sequence, out_of_buffer...) are marked with ! in the ERR column.
port_xmit_data and port_rcv_data count 4-byte words, as the IBTA defines.

JSON keys (-j, an array, one object per counter): dev, port (0: device
level), group ("counters" or "hw_counters"), name, value, error; with
--interval also delta, rate (per second) and reset (the value went down).
` + viewHelpJSON + `

Examples:
  verbscope counters
  verbscope counters --interval 1s dev rxe0
  verbscope counters --errors --nonzero
  verbscope counters -j --interval 2s | jq '.[] | select(.name == "sent_pkts") | .rate'`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			o := addViewFlags(fs)
			interval := fs.Duration("interval", 0, "read twice this `long` apart and show deltas and rates")
			onlyErr := fs.Bool("errors", false, "only error counters")
			nonzero := fs.Bool("nonzero", false, "only counters that are not 0 (or, with --interval, that moved)")
			return func(ctx context.Context, args []string) error {
				flt, err := parseFilters(args, "dev", "port", "name")
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
				var rates []sysfsmon.CounterRate
				if first != nil {
					if rates, err = sysfsmon.CounterRates(first, snap); err != nil {
						return err
					}
				} else {
					for _, c := range snap.Counters {
						rates = append(rates, sysfsmon.CounterRate{Counter: c})
					}
				}
				warn(env, "counters", snap.Warnings)
				var keep []sysfsmon.CounterRate
				for _, r := range rates {
					if !flt.match("dev", r.Device) || !flt.match("port", strconv.Itoa(r.Port)) ||
						(flt["name"] != "" && !strings.Contains(r.Name, flt["name"])) || (*onlyErr && !r.Error) {
						continue
					}
					if *nonzero && ((*interval > 0 && r.Delta == 0 && !r.Reset) || (*interval == 0 && r.Value == 0)) {
						continue
					}
					keep = append(keep, r)
				}
				if o.json {
					if *interval > 0 {
						return writeJSON(env.Stdout, o, keep)
					}
					plain := []sysfsmon.Counter{}
					for _, r := range keep {
						plain = append(plain, r.Counter)
					}
					return writeJSON(env.Stdout, o, plain)
				}
				writeCounters(env, keep, *interval)
				return nil
			}
		},
	}
}

func writeCounters(env *Env, rs []sysfsmon.CounterRate, interval time.Duration) {
	if len(rs) == 0 {
		// An empty table would look like a failure to read.
		fmt.Fprintln(env.Stdout, "no counter matches (the filters, --errors or --nonzero left none)")
		return
	}
	head := []string{"DEV", "PORT", "GROUP", "NAME", "VALUE"}
	if interval > 0 {
		head = append(head, "DELTA", "RATE/s")
	}
	t := newTable(append(head, "ERR")...)
	for _, r := range rs {
		row := []string{r.Device, strconv.Itoa(r.Port), r.Group, r.Name, strconv.FormatUint(r.Value, 10)}
		if interval > 0 {
			d := strconv.FormatUint(r.Delta, 10)
			if r.Reset {
				d = "reset"
			}
			row = append(row, d, rate(r.Rate))
		}
		mark := ""
		if r.Error {
			mark = "!"
		}
		t.add(append(row, mark)...)
	}
	t.write(env.Stdout)
}
