package counters

// mlx5Rows are mlx5_ib's counters (drivers/infiniband/hw/mlx5/counters.c:
// basic_q_cnts, out_of_seq_q_cnts, retrans_q_cnts, extended_err_cnts,
// roce_accl_cnts, cong_cnts, ext_ppcnt_cnts and the op counters), with
// meanings from NVIDIA's "Understanding mlx5 Linux Counters". The q
// counters are 32-bit: the kernel reads them as be32.
var mlx5QRows = []spec{
	{"rx_write_requests", ClassTraffic, SideResponder, SignalNone, false, "RDMA Write requests received", ""},
	{"rx_read_requests", ClassTraffic, SideResponder, SignalNone, false, "RDMA Read requests received", ""},
	{"rx_atomic_requests", ClassTraffic, SideResponder, SignalNone, false, "atomic requests received", ""},
	{"rx_dct_connect", ClassTraffic, SideResponder, SignalNone, false, "DC target connect requests received", ""},
	{"out_of_buffer", ClassDrop, SideResponder, SignalNone, false, "packets dropped because the QP had no receive WQE",
		"Raised when a packet arrives for a QP whose receive queue (or SRQ) is empty. On an RC QP the responder also answers with an RNR NAK, so the peer retries; on UD and other unreliable QPs the message is lost. It usually means receives are posted too slowly or too few. Check the receiving program's receive queue depth and repost rate, and the peer's rnr_nak_retry_err."},
	{"out_of_sequence", ClassRetry, SideResponder, SignalSequence, false, "packets received out of sequence (one before was lost)", ""},
	{"duplicate_request", ClassRetry, SideResponder, SignalNone, false, "requests received again: the peer requester resent them",
		"Raised on the responder for a request whose PSN it has already executed: the requester timed out or got a NAK and resent. It is recoverable and says the peer is retrying; look at the peer's local_ack_timeout_err and at loss on the path."},
	{"rnr_nak_retry_err", ClassRetry, SideRequester, SignalRNR, false, "RNR NAKs received: the peer had no receive posted; the send is retried",
		"Despite the _err in its name this is not a failure: it counts RNR NAKs the requester received, each of which it retries after min_rnr_timer, up to rnr_retry times. " + "A rise means the peer's receive queue ran empty. Check the peer's receives (its out_of_buffer rises with this one); only req_rnr_retries_exceeded means requests failed."},
	{"packet_seq_err", ClassRetry, SideRequester, SignalSequence, false, "sequence-error NAKs received: the responder missed a packet; resent from there", ""},
	{"implied_nak_seq_err", ClassRetry, SideRequester, SignalSequence, false, "implied NAKs: a read or atomic response showed earlier packets were lost", ""},
	{"local_ack_timeout_err", ClassRetry, SideRequester, SignalTimeoutRetry, false, "transport timeouts: a request got no ACK in time and is resent", ""},
	{"resp_local_length_error", ClassError, SideResponder, SignalNone, true, "incoming messages longer than the receive buffer posted for them",
		"Raised on the responder when a Send is larger than the receive WQE it lands in. The receive completes with IBV_WC_LOC_LEN_ERR, the QP goes to Error, and the requester sees a remote invalid request. Check the receive buffer sizes against the largest message the peer sends."},
	{"resp_cqe_error", ClassError, SideResponder, SignalNone, true, "receive completions with an error status", ""},
	{"req_cqe_error", ClassError, SideRequester, SignalNone, true, "send-side completions with an error status", ""},
	{"req_remote_invalid_request", ClassError, SideRequester, SignalRemoteInvalid, true, "requests the peer refused as invalid (opcode, length); the QP failed", ""},
	{"req_remote_access_errors", ClassError, SideRequester, SignalRemoteAccess, true, "RDMA requests the peer refused for access (rkey, range, permission)", ""},
	{"resp_remote_access_errors", ClassError, SideResponder, SignalRemoteAccess, true, "incoming RDMA requests refused for access (rkey, range, permission)", ""},
	{"resp_cqe_flush_error", ClassError, SideResponder, SignalNone, true, "receives flushed because their QP was in the Error state",
		"Raised for every posted receive completed with IBV_WC_WR_FLUSH_ERR: the QP went to Error (for another reason) and its outstanding work is flushed. It is a consequence, not a cause: look for the first error on that QP (another counter, or the first failed completion)."},
	{"req_cqe_flush_error", ClassError, SideRequester, SignalNone, true, "sends flushed because their QP was in the Error state",
		"Raised for every posted send completed with IBV_WC_WR_FLUSH_ERR: the QP went to Error and its queue is flushed. It is a consequence: find the first error on that QP."},
	{"req_transport_retries_exceeded", ClassError, SideRequester, SignalRetryExceeded, true, "requests failed after retry_cnt transport timeouts", ""},
	{"req_rnr_retries_exceeded", ClassError, SideRequester, SignalRNRExceeded, true, "requests failed after rnr_retry RNR NAKs", ""},
	{"roce_adp_retrans", ClassRetry, SideRequester, SignalTimeoutRetry, false, "retransmissions under adaptive retransmission", ""},
	{"roce_adp_retrans_to", ClassRetry, SideRequester, SignalTimeoutRetry, false, "timeouts under adaptive retransmission", ""},
	{"roce_slow_restart", ClassRetry, SideRequester, SignalTimeoutRetry, false, "times slow restart was used after retransmissions", ""},
	{"roce_slow_restart_cnps", ClassCongestion, SideRequester, SignalNone, false, "CNPs slow restart generated", ""},
	{"roce_slow_restart_trans", ClassRetry, SideRequester, SignalNone, false, "times a QP's state changed to slow restart", ""},
}

// mlx5PortRows are the congestion, PPCNT and op counters: 64-bit.
var mlx5PortRows = []spec{
	{"rp_cnp_ignored", ClassCongestion, SidePort, SignalNone, false, "CNPs received and ignored by the reaction point", ""},
	{"rp_cnp_handled", ClassCongestion, SidePort, SignalNone, false, "CNPs received and acted on: the sender slowed down", ""},
	{"np_ecn_marked_roce_packets", ClassCongestion, SidePort, SignalNone, false, "RoCE packets received with an ECN congestion mark", ""},
	{"np_cnp_sent", ClassCongestion, SidePort, SignalNone, false, "CNPs sent back to senders of ECN-marked packets", ""},
	{"rx_icrc_encapsulated", ClassError, SidePort, SignalNone, false, "RoCE packets received with a bad ICRC",
		"Raised for received RoCE packets whose invariant CRC does not match: corrupted on the way, or rewritten by a middlebox that did not recompute it. They are dropped and the sender retries. Check the path for devices that modify RoCE packets and the link's error counters."},
	{"cc_rx_ce_pkts", ClassCongestion, SidePort, SignalNone, false, "RoCE packets received with the CE (congestion experienced) mark", ""},
	{"cc_rx_cnp_pkts", ClassCongestion, SidePort, SignalNone, false, "CNP packets received", ""},
	{"cc_tx_cnp_pkts", ClassCongestion, SidePort, SignalNone, false, "CNP packets sent", ""},
	{"rdma_tx_packets", ClassTraffic, SidePort, SignalNone, false, "RDMA packets sent", ""},
	{"rdma_tx_bytes", ClassTraffic, SidePort, SignalNone, false, "RDMA bytes sent", ""},
	{"rdma_rx_packets", ClassTraffic, SidePort, SignalNone, false, "RDMA packets received", ""},
	{"rdma_rx_bytes", ClassTraffic, SidePort, SignalNone, false, "RDMA bytes received", ""},
}

func mlx5Table() []entry {
	const src = "drivers/infiniband/hw/mlx5/counters.c; NVIDIA, Understanding mlx5 Linux Counters"
	out := group("mlx5", src+" (q counter, 32-bit)", 32, mlx5QRows...)
	out = append(out, group("mlx5", src+" (vport q counter of a switchdev representor, 32-bit)", 32, prefixed("vport_", mlx5QRows)...)...)
	return append(out, group("mlx5", src, 0, mlx5PortRows...)...)
}

// mlx5Row finds one of mlx5's rows by name, for the drivers that took
// mlx5's names for the same counts.
func mlx5Row(name string) spec {
	for _, rows := range [][]spec{mlx5QRows, mlx5PortRows} {
		for _, r := range rows {
			if r.name == name {
				return r
			}
		}
	}
	return spec{name: name} // no meaning: TestEntriesWellFormed fails on it
}
