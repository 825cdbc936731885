package cli

import (
	"context"
	"flag"
	"log/slog"
	"slices"
	"time"

	"github.com/verbscope/verbscope/export"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/shell/transcript"
)

func init() { register("export", exportCmd) }

// exportPort is verbscope export's default port.
const exportPort = "9879"

func exportCmd() *command {
	return &command{
		Name:    "export",
		Summary: "serve this host's RDMA state as Prometheus metrics (QPs by state, transitions, counters)",
		Usage:   "[--web.listen-address=:" + exportPort + "] [--web.config.file=FILE] [--api.sensitive] [--interval=2s] [--no-trace]",
		Help:    exportHelp,
		Setup:   exportSetup,
	}
}

// exportHelp is export --help's text.
var exportHelp = helpText("export")

// exportSetup declares export's flags; the command it returns checks
// them and runs the exporter (export.Run).
func exportSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	listen := fs.String("web.listen-address", ":"+exportPort, "`address` to listen on")
	webConfig := fs.String("web.config.file", "", "exporter-toolkit web config `file` for TLS and basic auth")
	interval := fs.Duration("interval", 2*time.Second, "how often to read netlink and sysfs")
	procs := fs.Int("collector.processes", 0, "also export the objects of the `N` processes with the most, by command name (0: off)")
	ownersN := fs.Int("collector.owners", 0, "also export the objects, pinned bytes and memlock ratio of the `N` containers or systemd units with the most objects, the rest as \"other\" (0: off)")
	ownersBy := fs.String("collector.owners.by", string(owners.ByPlace), "with --collector.owners: group by `place` (a process's container, else its systemd unit), unit, container or pod")
	window := fs.Duration("window", inspect.DefaultGrowthWindow, "with --collector.owners: a kind that only grew over this `duration` is growing (verbscope_owner_objects_growing)")
	noTrace := fs.Bool("no-trace", false, "do not trace QP modifies with eBPF (histories then carry states only)")
	sensitive := fs.Bool("api.sensitive", false, "serve /api/v1/qps's PSNs, rqpn, keys and traced attributes to clients that did not authenticate too")
	record := fs.String("record", "", "also record to `file` what verbscope record would (a file there is kept as FILE.prev)")
	retain := fs.Duration("retain", 0, "with --record: drop readings older than `duration` behind the newest (0: keep all)")
	maxSize := fs.String("max-size", "", "with --record: drop the oldest readings while the file and its -wal take more than `size` (1GiB, 500MiB)")
	pf := addPeerFlags(fs, nil)
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErrorf("export takes no arguments, only flags")
		}
		if *interval < 100*time.Millisecond {
			return usageErrorf("--interval %v is too short: at least 100ms", *interval)
		}
		if *procs < 0 {
			return usageErrorf("--collector.processes %d: want 0 or more", *procs)
		}
		if *ownersN < 0 {
			return usageErrorf("--collector.owners %d: want 0 or more", *ownersN)
		}
		by := owners.By(*ownersBy)
		if !slices.Contains(export.OwnerGroupings, by) {
			return usageErrorf("--collector.owners.by: group owners by %q: want place, unit, container or pod", *ownersBy)
		}
		if err := checkWindow(*window, *interval); err != nil {
			return err
		}
		size, err := parseSize(*maxSize)
		if err != nil {
			return usageErrorf("--max-size %q: %v", *maxSize, err)
		}
		if *record == "" && (*retain != 0 || size != 0) {
			return usageErrorf("--retain and --max-size bound a recording: give --record FILE too")
		}
		if *retain < 0 {
			return usageErrorf("--retain %s: give a duration of 0 or more", *retain)
		}
		peers, err := pf.open()
		if err != nil {
			return err
		}
		log := slog.New(slog.NewTextHandler(env.Stderr, nil))
		return export.Run(ctx, export.RunOptions{Listen: *listen, Window: *window, Log: log,
			Collector: export.Options{Version: buildVersion(env), TopProcesses: *procs, Interval: *interval, TopOwners: *ownersN, OwnersBy: by, Peers: peers},
			API:       export.APIOptions{WebConfig: *webConfig, Sensitive: *sensitive},
			Trace:     !*noTrace, TraceEnv: verbsfacts.TraceEnv(), LoadLimits: verbsfacts.LoadLimits(log),
			Record: *record, RecordVersion: env.Version,
			RecordOptions: rec.WriterOptions{KeyEvery: rec.DefaultKeyEvery, Retain: *retain, MaxSize: size, Sessions: transcript.Dir()}})
	}
}
