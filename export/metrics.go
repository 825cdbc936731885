package export

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/verbscope/verbscope/counters"
)

// Metric names are the issue's, prefix verbscope_, base units, counters
// ending in _total. Label names are few and bounded: device, port, kind,
// type, state, to_state, collector and the _info metadata; never a QP
// number, pid, GID or key.
const ns = "verbscope"

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(ns+"_"+name, help, labels, nil)
}

var (
	devPort = []string{"device", "port"}
	qpGroup = []string{"device", "port", "type"}
	devKind = []string{"device", "kind"}

	descDeviceInfo = desc("device_info", "An RDMA device (/sys/class/infiniband/DEV: node_guid, sys_image_guid, fw_ver, node_type); always 1.",
		"device", "node_guid", "sys_image_guid", "fw_version", "node_type")
	descPortInfo = desc("port_info", "A port of an RDMA device (ports/N/link_layer and the netdev its GIDs are bound to); always 1.",
		"device", "port", "link_layer", "netdev")
	descPortState     = desc("port_state", "The port's logical state, the kernel's number in ports/N/state (enum ib_port_state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, 5 ACTIVE_DEFER).", devPort...)
	descPortPhysState = desc("port_physical_state", "The port's physical state, the kernel's number in ports/N/phys_state (5 = LinkUp, 3 = Disabled, 2 = Polling).", devPort...)
	descPortRate      = desc("port_rate_bytes_per_second", "The port's data rate (ports/N/rate) in bytes per second.", devPort...)

	descResources = desc("resources", "Objects of each kind on the device, kernel ones included, as the kernel's restrack counts them (rdma resource show).", devKind...)
	descQPs       = desc("qps", "QPs by state (enum ib_qp_state), as RDMA netlink reports them; every state is present, 0 when none.",
		"device", "port", "type", "state")
	descTransitions = desc("qp_transitions_total", "QP state changes, by the state entered: each modify traced while trace_up is 1, and those two readings saw that no traced modify explains (the kernel's moves to ERR; without trace, states between two readings are not seen).",
		"device", "port", "type", "to_state")
	descStuck     = desc("qps_stuck", "Reliable QPs in RTS or SQD whose PSNs stood still for several readings with work outstanding, on their own evidence: PSNs their peer on this host never accepted, or their own per-QP retry counters rising.", qpGroup...)
	descDead      = desc("objects_of_dead_processes", "Objects whose owning process no longer exists (held by the kernel or leaked).", devKind...)
	descUsage     = desc("resource_usage_ratio", "Objects of a kind against the device limit (ibv_query_device: max_qp, max_cq, max_mr, max_pd, max_srq).", devKind...)
	descProcesses = desc("process_objects", "Objects of the processes with the most of them, by command name; the rest are folded into process=\"other\".",
		"device", "process", "kind")

	descOwnerObjects = desc("owner_objects", "Objects of the groups of processes with the most of them (--collector.owners=N), each named by its container (runtime:id) or systemd unit (else its cgroup path), or with --collector.owners.by by unit, container or pod (its UID); the rest are folded into owner=\"other\", processes whose cgroup is unknown (or that have no container or pod) into \"none\".",
		"owner", "kind")
	descOwnerPinned  = desc("owner_pinned_bytes", "Bytes the group's MRs pin (the sum of their lengths, rdma resource show mr's mrlen), as --collector.owners groups them.", "owner")
	descOwnerGrowing = desc("owner_objects_growing", "Objects a minute the group's processes gained, per kind, where the kind only grew over the Tracker's window (default 10 min) by at least 10: a leak suspect; 0 otherwise.", "owner", "kind")
	descMemlockRatio = desc("process_memlock_ratio", "Of the group's processes, the one nearest its RLIMIT_MEMLOCK: its pinned MR bytes against its soft limit (/proc/PID/limits); 0 when no limit binds it (unlimited, or CAP_IPC_LOCK). Past 0.8 its next ibv_reg_mr is likely to fail with ENOMEM.", "owner")

	descKernelLog = desc("kernel_log_messages_total", "Lines RDMA drivers and modules wrote to the kernel log (/dev/kmsg; what its ring still held when the exporter started, then each new one), by driver or module and syslog level. Absent without the privilege to read it (root or CAP_SYSLOG).", "driver", "level")

	descTraceUp   = desc("trace_up", "Whether trace's programs attached (1), so that every QP modify reaches the histories and transitions between readings are counted, or not yet or not at all (0: transitions two readings do not straddle are missed). Present when the exporter traces.")
	descTraceLost = desc("trace_events_lost_total", "Trace events lost since the exporter started: dropped by the kernel because trace's ring buffer was full, skipped because they did not decode, or dropped from the queue of modifies while readings stalled (the next reading is then a whole dump). Present when the exporter traces.")

	descSuccess     = desc("collector_success", "Whether the collector's last reading succeeded (1) or failed (0): one odd device or file fails its collector, not the scrape.", "collector")
	descDuration    = desc("collector_duration_seconds", "How long the collector's last reading took.", "collector")
	descLastReading = desc("last_reading_timestamp_seconds", "When the collector's last reading ended (Unix time), failed or not; "+
		"a reading more than 3 intervals old makes collector_success 0 and hides the collector's series.", "collector")
	descBuild = desc("build_info", "The verbscope build serving the metrics; always 1.", "version", "goversion")
)

// Collector names, the values of the collector label.
const (
	collDevices  = "devices"
	collCounters = "counters"
	collNetlink  = "netlink"
)

// portCounter maps a counters/ file (IBTA PortCounters and
// PortCountersExtended, Documentation/ABI/stable/sysfs-class-infiniband)
// to a metric; scale turns the unit into the base one (port_rcv_data and
// port_xmit_data count 4-octet words).
type portCounter struct {
	file  string
	desc  *prometheus.Desc
	scale float64
}

func counterDesc(name, help string) *prometheus.Desc {
	return desc("port_"+name+"_total", help, devPort...)
}

// portCounters' HELP texts are the counter registry's meanings
// (counters.Lookup), with the file they come from; built on first use,
// as hwTables is (the registry's index is built by its first lookup).
var portCounters = sync.OnceValue(func() []portCounter {
	return []portCounter{
		portMetric("port_rcv_data", "receive_bytes", 4),
		portMetric("port_xmit_data", "transmit_bytes", 4),
		portMetric("port_rcv_packets", "receive_packets", 1),
		portMetric("port_xmit_packets", "transmit_packets", 1),
		portMetric("unicast_rcv_packets", "receive_unicast_packets", 1),
		portMetric("unicast_xmit_packets", "transmit_unicast_packets", 1),
		portMetric("multicast_rcv_packets", "receive_multicast_packets", 1),
		portMetric("multicast_xmit_packets", "transmit_multicast_packets", 1),
		portMetric("symbol_error", "symbol_errors", 1),
		portMetric("link_downed", "link_downed", 1),
		portMetric("link_error_recovery", "link_error_recovery", 1),
		portMetric("port_rcv_errors", "receive_errors", 1),
		portMetric("port_rcv_remote_physical_errors", "receive_remote_physical_errors", 1),
		portMetric("port_rcv_switch_relay_errors", "receive_switch_relay_errors", 1),
		portMetric("port_rcv_constraint_errors", "receive_constraint_errors", 1),
		portMetric("port_xmit_discards", "transmit_discards", 1),
		portMetric("port_xmit_constraint_errors", "transmit_constraint_errors", 1),
		portMetric("port_xmit_wait", "transmit_wait", 1),
		portMetric("local_link_integrity_errors", "local_link_integrity_errors", 1),
		portMetric("excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors", 1),
		portMetric("VL15_dropped", "vl15_dropped", 1),
	}
})

// portMetric is the metric of a PortCounters file, its HELP the
// registry's meaning; the data counters are exported in bytes.
func portMetric(file, metric string, scale float64) portCounter {
	// A file the registry lacked would have a bare HELP; TestHelpFromRegistry
	// keeps that from happening.
	in, _ := counters.Lookup("", file)
	help := in.Meaning
	if scale != 1 {
		help = strings.Replace(help, "in units of 4 bytes (multiply by 4 for bytes)", "in bytes", 1)
	}
	return portCounter{file, counterDesc(metric, upperFirst(help)+" (counters/"+file+", "+string(in.Class)+")."), scale}
}

// upperFirst capitalises a HELP text's first letter.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// hwTables are the curated hw_counters/ metrics, built on first use
// (only the exporter reads them; built at init they were a quarter of
// every verbscope command's start), as two maps:
//   - by file name: each hw_counters/ file's metric: retransmissions,
//     timeouts, out-of-sequence packets and congestion notifications,
//     under one name when two drivers count the same thing (mlx5's
//     drivers/infiniband/hw/mlx5/counters.c, rxe's
//     drivers/infiniband/sw/rxe/rxe_hw_counters.c);
//   - by metric name: each metric's HELP: the first file's meaning in the counter
//     registry, and every driver's file it is read from.
var hwTables = sync.OnceValues(func() (map[string]*prometheus.Desc, map[string]string) {
	hwCounters, hwHelp := map[string]*prometheus.Desc{}, map[string]string{}
	for _, h := range []struct {
		name  string
		files []string // driver/name
	}{
		{"retransmits", []string{"rxe/completer_retry_err"}},
		{"adaptive_retransmits", []string{"mlx5/roce_adp_retrans"}},
		{"retry_exceeded_errors", []string{"rxe/retry_exceeded_err", "mlx5/req_transport_retries_exceeded"}},
		{"rnr_retry_exceeded_errors", []string{"rxe/retry_rnr_exceeded_err", "mlx5/req_rnr_retries_exceeded"}},
		// mlx5's rnr_nak_retry_err counts RNR NAKs received and retried,
		// as rxe's rcvd_rnr_err does: not requests that failed.
		{"rnr_naks_received", []string{"rxe/rcvd_rnr_err", "mlx5/rnr_nak_retry_err"}},
		{"local_ack_timeouts", []string{"mlx5/local_ack_timeout_err"}},
		{"out_of_sequence", []string{"mlx5/out_of_sequence", "rxe/out_of_seq_request"}},
		{"sequence_error_naks_received", []string{"mlx5/packet_seq_err", "rxe/rcvd_seq_err"}},
		{"implied_nak_sequence_errors", []string{"mlx5/implied_nak_seq_err"}},
		{"duplicate_requests", []string{"mlx5/duplicate_request", "rxe/duplicate_request"}},
		{"cnp_sent", []string{"mlx5/np_cnp_sent"}},
		{"cnp_handled", []string{"mlx5/rp_cnp_handled"}},
		{"cnp_ignored", []string{"mlx5/rp_cnp_ignored"}},
		{"ecn_marked_packets", []string{"mlx5/np_ecn_marked_roce_packets"}},
	} {
		var from []string
		help := ""
		for _, f := range h.files {
			drv, name, _ := strings.Cut(f, "/")
			in, _ := counters.Lookup(drv, name) // TestHelpFromRegistry: all are there
			if help == "" {
				help = upperFirst(in.Meaning)
			}
			from = append(from, drv+" hw_counters/"+name)
		}
		help += " (" + strings.Join(from, ", ") + ")."
		hwHelp[h.name] = help
		d := counterDesc(h.name, help)
		for _, f := range h.files {
			_, name, _ := strings.Cut(f, "/")
			hwCounters[name] = d
		}
	}
	return hwCounters, hwHelp
})
