package export

import "github.com/prometheus/client_golang/prometheus"

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
	descTraceLost = desc("trace_events_lost_total", "Trace events lost since the exporter started: dropped by the kernel because trace's ring buffer was full, or skipped because they did not decode. Present when the exporter traces.")

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

var portCounters = []portCounter{
	{"port_rcv_data", counterDesc("receive_bytes", "Bytes received (counters/port_rcv_data × 4)."), 4},
	{"port_xmit_data", counterDesc("transmit_bytes", "Bytes sent (counters/port_xmit_data × 4)."), 4},
	{"port_rcv_packets", counterDesc("receive_packets", "Packets received (counters/port_rcv_packets)."), 1},
	{"port_xmit_packets", counterDesc("transmit_packets", "Packets sent (counters/port_xmit_packets)."), 1},
	{"unicast_rcv_packets", counterDesc("receive_unicast_packets", "Unicast packets received (counters/unicast_rcv_packets)."), 1},
	{"unicast_xmit_packets", counterDesc("transmit_unicast_packets", "Unicast packets sent (counters/unicast_xmit_packets)."), 1},
	{"multicast_rcv_packets", counterDesc("receive_multicast_packets", "Multicast packets received (counters/multicast_rcv_packets)."), 1},
	{"multicast_xmit_packets", counterDesc("transmit_multicast_packets", "Multicast packets sent (counters/multicast_xmit_packets)."), 1},
	{"symbol_error", counterDesc("symbol_errors", "Minor link errors (counters/symbol_error)."), 1},
	{"link_downed", counterDesc("link_downed", "Times the link went down after failing to recover (counters/link_downed)."), 1},
	{"link_error_recovery", counterDesc("link_error_recovery", "Link error recoveries that succeeded (counters/link_error_recovery)."), 1},
	{"port_rcv_errors", counterDesc("receive_errors", "Received packets with errors (counters/port_rcv_errors)."), 1},
	{"port_rcv_remote_physical_errors", counterDesc("receive_remote_physical_errors", "Received packets marked bad by the sender (counters/port_rcv_remote_physical_errors)."), 1},
	{"port_rcv_switch_relay_errors", counterDesc("receive_switch_relay_errors", "Received packets a switch could not relay (counters/port_rcv_switch_relay_errors)."), 1},
	{"port_rcv_constraint_errors", counterDesc("receive_constraint_errors", "Received packets dropped by partition or raw-packet checks (counters/port_rcv_constraint_errors)."), 1},
	{"port_xmit_discards", counterDesc("transmit_discards", "Outbound packets discarded because the port was down or congested (counters/port_xmit_discards)."), 1},
	{"port_xmit_constraint_errors", counterDesc("transmit_constraint_errors", "Outbound packets dropped by partition or raw-packet checks (counters/port_xmit_constraint_errors)."), 1},
	{"port_xmit_wait", counterDesc("transmit_wait", "Ticks the port had data to send but no credits (counters/port_xmit_wait)."), 1},
	{"local_link_integrity_errors", counterDesc("local_link_integrity_errors", "Local physical errors beyond the threshold (counters/local_link_integrity_errors)."), 1},
	{"excessive_buffer_overrun_errors", counterDesc("excessive_buffer_overrun_errors", "Consecutive flow-control buffer overruns (counters/excessive_buffer_overrun_errors)."), 1},
	{"VL15_dropped", counterDesc("vl15_dropped", "Subnet management packets dropped (counters/VL15_dropped)."), 1},
}

// hwCounters is the curated set of hw_counters/ files: retransmissions,
// timeouts, out-of-sequence packets and congestion notifications, under
// one name when two drivers count the same thing (mlx5's
// drivers/infiniband/hw/mlx5/counters.c, rxe's
// drivers/infiniband/sw/rxe/rxe_hw_counters.c).
var hwCounters = map[string]*prometheus.Desc{}

func init() {
	for _, h := range []struct {
		name, help string
		files      []string
	}{
		{"retransmits", "Requests the requester retransmitted (rxe hw_counters/completer_retry_err).", []string{"completer_retry_err"}},
		{"adaptive_retransmits", "Adaptive retransmissions (mlx5 hw_counters/roce_adp_retrans).", []string{"roce_adp_retrans"}},
		{"retry_exceeded_errors", "Requests that failed after exhausting their transport retries (rxe retry_exceeded_err).", []string{"retry_exceeded_err"}},
		{"rnr_retry_exceeded_errors", "Requests that failed after exhausting their RNR retries (mlx5 rnr_nak_retry_err, rxe retry_rnr_exceeded_err).", []string{"rnr_nak_retry_err", "retry_rnr_exceeded_err"}},
		{"rnr_naks_received", "RNR NAKs received (rxe hw_counters/rcvd_rnr_err).", []string{"rcvd_rnr_err"}},
		{"local_ack_timeouts", "ACK timer expirations on the requester (mlx5 hw_counters/local_ack_timeout_err).", []string{"local_ack_timeout_err"}},
		{"out_of_sequence", "Out-of-sequence packets received (mlx5 out_of_sequence, rxe out_of_seq_request).", []string{"out_of_sequence", "out_of_seq_request"}},
		{"sequence_error_naks_received", "NAKs for a sequence error received (mlx5 packet_seq_err, rxe rcvd_seq_err).", []string{"packet_seq_err", "rcvd_seq_err"}},
		{"implied_nak_sequence_errors", "Implied NAK sequence errors (mlx5 hw_counters/implied_nak_seq_err).", []string{"implied_nak_seq_err"}},
		{"duplicate_requests", "Duplicate requests received (hw_counters/duplicate_request).", []string{"duplicate_request"}},
		{"cnp_sent", "Congestion notification packets sent (mlx5 hw_counters/np_cnp_sent).", []string{"np_cnp_sent"}},
		{"cnp_handled", "Congestion notification packets handled (mlx5 rp_cnp_handled, hw_counters/cnp_handled).", []string{"rp_cnp_handled", "cnp_handled"}},
		{"cnp_ignored", "Congestion notification packets ignored (mlx5 hw_counters/rp_cnp_ignored).", []string{"rp_cnp_ignored"}},
		{"ecn_marked_packets", "ECN-marked RoCE packets received (mlx5 hw_counters/np_ecn_marked_roce_packets).", []string{"np_ecn_marked_roce_packets"}},
	} {
		d := counterDesc(h.name, h.help)
		for _, f := range h.files {
			hwCounters[f] = d
		}
	}
}
