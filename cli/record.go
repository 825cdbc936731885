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
var recordHelp = helpText("record")

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
