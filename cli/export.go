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
const exportHelp = `Serves /metrics for Prometheus, /api/v1/qps (every QP as 'verbscope res
qp -j' shows it, with its state history) and a landing page at /.

It reads RDMA netlink and sysfs every --interval in the background, keeping
each QP's state history between scrapes; a scrape reads the latest state.
A reading that hangs (a sysfs file that blocks, a netlink dump that never
ends) is not served as fresh: once the last one is more than 3 intervals
old, its collector's verbscope_collector_success is 0 and its series go;
verbscope_last_reading_timestamp_seconds{collector} says when each last
read. A device that goes takes its series with it.

Metrics: devices and ports (verbscope_device_info, verbscope_port_state,
verbscope_port_*_total from counters/ and hw_counters/), object counts
(verbscope_resources), QPs by state (verbscope_qps), the state changes
(verbscope_qp_transitions_total: each traced modify that changed a state,
and what two readings saw that no modify explains), stuck QPs (verbscope_qps_stuck), objects
of dead processes and usage against the device limits. No label carries a
QP number, a pid, a GID or a key. It never changes anything on the host.

verbscope_kernel_log_messages_total{driver,level} counts the lines RDMA
drivers and modules (rdma_rxe, mlx5_core, ib_core, ...) wrote to the
kernel log, from what its ring holds at start (as root or with
CAP_SYSLOG; without, the log says so once and the metric is absent).

--collector.owners=N groups the processes holding objects by where they
live (their container as runtime:id, else their systemd unit, else their
cgroup path; /proc/PID/cgroup) and exports the N groups with the most
objects, the rest as owner="other": verbscope_owner_objects{owner,kind},
verbscope_owner_pinned_bytes{owner} (the sum of their MR lengths) and
verbscope_process_memlock_ratio{owner}, the pinned bytes of the group's
process nearest its RLIMIT_MEMLOCK against that limit (0 where none binds:
unlimited, or CAP_IPC_LOCK); past 0.8 its next ibv_reg_mr is likely to
fail with ENOMEM. --collector.owners.by=unit, container or pod groups them
by that alone (a pod by its UID); those without one are owner="none".

As root (CAP_BPF and CAP_PERFMON) on a kernel with BTF it also traces every
process's QP modifies from the kernel (the programs of 'verbscope trace'
for QPs), so each /api/v1/qps history entry a modify made carries it as
"modify": pid, comm, mask, attrs (what the mask set, named and valued as
'verbscope trace -j' prints them), ret, and errno and check when it
failed. verbscope_trace_up is 1 once its programs attached (before, and
without trace, transitions two readings do not straddle are missed), and
verbscope_trace_events_lost_total counts the events it lost. Without the
rights or BTF it says so once on stderr and serves the states alone;
--no-trace turns tracing off (and the two trace metrics with it).

What goes to whom: nothing that RDMA netlink hides from an unprivileged
local user, and nothing that lets a remote party join or spoof a
connection, goes to a client that did not authenticate. Without a web
config that authenticates (basic_auth_users, or verified client
certificates), /api/v1/qps leaves out the PSNs (sq-psn, rq-psn), the
peer's QP number (rqpn, dest_qp_num), any key, and of each history entry
its PSNs and the traced modify's attrs (qkey, dgid, ...) and check; pid,
comm, state, type and the modify's mask stay. Authenticated clients get
everything, and so does anyone with --api.sensitive (for a port only
trusted hosts reach). /metrics carries none of it and, as node_exporter's,
listens on every interface by default. The log says at start what is
served without authentication.

/api/v1/qps answers in (device, lqpn) order and takes the filter words of
'verbscope res qp' (a bad word is a 400 naming the valid ones) and pages:
  /api/v1/qps?filter=state=ERR+type=RC
  /api/v1/qps?limit=100&after=rxe0:17     (a Link header names the next page)
It is serialised once per reading and shared by every request.

--record FILE also records this host's objects, QP histories (with the
traced modifies), counters, IRQs and alerts, as 'verbscope record' does,
from the exporter's own readings: a fleet's hosts keep their history beside
their metrics, for 'verbscope dash --replay FILE'. --retain and --max-size
bound it. The file is made 0600 (it holds what /api/v1/qps gives only to
authenticated clients); a file already there (the exporter restarted) is
kept as FILE.prev, replacing an older one. A write that fails (the disk
full) stops the recording, not the exporter, and says so in the log.

TLS and basic auth come from a web config file, as node_exporter's
(https://prometheus.io/docs/prometheus/latest/configuration/https/):
  tls_server_config:
    cert_file: /etc/verbscope/cert.pem
    key_file: /etc/verbscope/key.pem
  basic_auth_users:
    prometheus: $2y$10$...          # htpasswd -nBC 10 prometheus

deploy/ has a systemd unit, a sample prometheus.yml, alert rules and a
Grafana dashboard; 'verbscope fleet' shows every host Prometheus scrapes.

Examples:
  verbscope export
  verbscope export --web.listen-address=127.0.0.1:` + exportPort + ` --interval=1s
  verbscope export --web.config.file=/etc/verbscope/web.yml
  verbscope export --web.listen-address=10.0.0.5:` + exportPort + ` --api.sensitive
  verbscope export --collector.processes=5
  verbscope export --collector.owners=10
  verbscope export --collector.owners=10 --collector.owners.by=pod
  verbscope export --no-trace
  verbscope export --record /var/lib/verbscope/export.vsrec --retain 24h --max-size 1GiB`

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
