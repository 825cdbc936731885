package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/internal/interrupt"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/shell/transcript"
)

func init() { register("record", recordCmd) }

func recordCmd() *command {
	return &command{
		Name:          "record",
		Summary:       "record this host's RDMA objects, QP histories, counters and alerts to a file; info and export it",
		Usage:         "[-o FILE] [--interval D] [--for D] [--no-trace] [--retain D] [--max-size SIZE] | info FILE [-j] | export FILE --csv|-j|--perfetto OUT.json",
		FlagsAnywhere: true,
		Help:          recordHelp,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			out := fs.String("o", "", "the recording's `file` (default verbscope-HOST-TIME.vsrec here); a new file, mode 0600")
			interval := fs.Duration("interval", time.Second, "read every `duration`")
			dur := fs.Duration("for", 0, "stop after `duration` (0: until ctrl+c or SIGTERM)")
			noTrace := fs.Bool("no-trace", false, "do not trace QP modifies with eBPF (transitions then carry only the states each reading saw)")
			retain := fs.Duration("retain", 0, "drop readings older than `duration` behind the newest (0: keep all)")
			maxSize := fs.String("max-size", defaultRecordMax, "drop the oldest readings while the file and its -wal take more than `size` (500MiB, 10GiB; 0: no bound)")
			keyEvery := fs.Int("key-every", rec.DefaultKeyEvery, "write every object whole every `n` readings (a seek replays at most n)")
			dev := fs.String("dev", "", "record only this `device` (default all)")
			force := fs.Bool("force", false, "replace the file if it exists (never through a symlink)")
			asJSON := fs.Bool("j", false, "info, export: print JSON")
			csvOut := fs.Bool("csv", false, "export: print the lifetimes and transitions as CSV")
			perfetto := fs.String("perfetto", "", "export: write Chrome trace JSON for ui.perfetto.dev to `file` ('-': stdout)")
			pf := addPeerFlags(fs, nil)
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					switch args[0] {
					case "info":
						return recordInfo(ctx, env, args[1:], *asJSON)
					case "export":
						return recordExport(ctx, env, args[1:], exportFormat{json: *asJSON, csv: *csvOut, perfetto: *perfetto, force: *force})
					}
					return usageErrorf("record takes no arguments but info FILE or export FILE, got %q", strings.Join(args, " "))
				}
				if *interval < 100*time.Millisecond {
					return usageErrorf("--interval %s: give at least 100ms", *interval)
				}
				size, err := parseSize(*maxSize)
				if err != nil {
					return usageErrorf("--max-size %q: %v", *maxSize, err)
				}
				if *keyEvery < 1 {
					return usageErrorf("--key-every %d: give 1 or more", *keyEvery)
				}
				peers, err := pf.config()
				if err != nil {
					return err
				}
				return rec.Record(ctx, rec.RecordOptions{Path: *out, Interval: *interval, For: *dur, Dev: *dev, Version: env.Version,
					Trace: !*noTrace, TraceEnv: verbsfacts.TraceEnv(), LoadLimits: verbsfacts.LoadLimits(slog.New(slog.DiscardHandler)),
					Writer: rec.WriterOptions{KeyEvery: *keyEvery, Retain: *retain, MaxSize: size, Force: *force, Sessions: transcript.Dir()},
					Peers:  peers, Again: interrupt.Again, Log: env.Stderr})
			}
		},
	}
}

// recordHelp is record --help's text.
const recordHelp = `Records what the dashboard shows, reading by reading, into an SQLite file
that tools other than verbscope can query (the schema and example queries
are in docs/record.md): every process's objects, each QP's state history
with what each traced modify set, the processes' object counts, the alerts
(failed, stuck, dead owner), the ports' devices and counters, the host's
identity, and the recording's own gaps (readings missed or failed, trace
events lost). Objects are written when they appear, change or vanish, with
a keyframe every --key-every readings.

It records until ctrl+c or SIGTERM, or for --for, then takes one last
reading once trace has handed over what it saw (a second ctrl+c stops at
once). Each reading is one transaction, so a recorder killed mid-write
leaves a file with every reading before. --retain and --max-size drop the
oldest readings; --max-size is 1GiB unless told (0: no bound), the file
and SQLite's -wal beside it counted together.

  verbscope record info FILE      host, time span, readings, objects, gaps
  verbscope record export FILE --perfetto OUT.json
                                  Chrome trace JSON for ui.perfetto.dev: a
                                  track per process, each QP's lifetime a
                                  slice, each state change an instant with
                                  the modify's attributes, port counters
  verbscope record export FILE --csv   (or -j) lifetimes and transitions

Examples:
  verbscope record -o night.vsrec --retain 24h --max-size 1GiB
  verbscope record --for 10m --interval 500ms
  verbscope record info night.vsrec
  sqlite3 night.vsrec "SELECT * FROM transitions WHERE state = 'ERR'"`

// defaultRecordMax bounds a recording when --max-size is not given: a
// recorder left running fills no disk. At 10,000 QPs a recording grows
// some 360 MiB an hour (docs/record.md), so this keeps the last hours of
// a busy host and days of a quiet one.
const defaultRecordMax = "1GiB"

// parseSize reads a size: bytes, or a number with K, M, G, T (powers
// of 1024, with or without "iB" or "B").
func parseSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	num := strings.TrimRight(s, "KMGTiBb ")
	unit := strings.TrimSpace(strings.TrimPrefix(s, num))
	n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || n < 0 {
		return 0, errors.New("want a size such as 1GiB, 500MiB or 1048576")
	}
	shift := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KiB": 10, "M": 20, "MB": 20, "MiB": 20,
		"G": 30, "GB": 30, "GiB": 30, "T": 40, "TB": 40, "TiB": 40}
	sh, ok := shift[unit]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q: want K, M, G or T (KiB, MiB, GiB, TiB)", unit)
	}
	return int64(n * float64(uint64(1)<<sh)), nil
}
