package counters

// bnxtTable is bnxt_re's (Broadcom NetXtreme-E):
// drivers/infiniband/hw/bnxt_re/hw_counters.c, bnxt_re_stat_descs, as in
// mainline from v6.7 (active_*, watermark_*, the roce error counters and
// the extended ones of gen P5 chips). Broadcom's own out-of-tree driver
// renames many to mlx5's names; those follow, with mlx5's meanings.
func bnxtTable() []entry {
	const src = "drivers/infiniband/hw/bnxt_re/hw_counters.c"
	gauge := func(name, what string) spec {
		return spec{name, ClassOther, SideDevice, SignalNone, false, what + " in use now (a gauge, not a counter)", ""}
	}
	mark := func(name, what string) spec {
		return spec{name, ClassOther, SideDevice, SignalNone, false, "most " + what + " in use at once since the driver loaded", ""}
	}
	out := group("bnxt_re", src, 0,
		gauge("active_pds", "protection domains"), gauge("active_ahs", "address handles"), gauge("active_qps", "QPs"),
		gauge("active_rc_qps", "RC QPs"), gauge("active_ud_qps", "UD QPs"), gauge("active_srqs", "SRQs"),
		gauge("active_cqs", "CQs"), gauge("active_mrs", "memory regions"), gauge("active_mws", "memory windows"),
		mark("watermark_pds", "protection domains"), mark("watermark_ahs", "address handles"), mark("watermark_qps", "QPs"),
		mark("watermark_rc_qps", "RC QPs"), mark("watermark_ud_qps", "UD QPs"), mark("watermark_srqs", "SRQs"),
		mark("watermark_cqs", "CQs"), mark("watermark_mrs", "memory regions"), mark("watermark_mws", "memory windows"),
		spec{"resize_cq_cnt", ClassOther, SideDevice, SignalNone, false, "CQ resizes", ""},
		spec{"rx_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets received", ""},
		spec{"rx_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes received", ""},
		spec{"tx_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets sent", ""},
		spec{"tx_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes sent", ""},
		spec{"recoverable_errors", ClassError, SideDevice, SignalNone, false, "errors the device recovered from", ""},
		spec{"tx_roce_errors", ClassError, SidePort, SignalNone, false, "RoCE packets that failed to send", ""},
		spec{"tx_roce_discards", ClassDrop, SidePort, SignalNone, false, "RoCE packets discarded on send", ""},
		spec{"rx_roce_errors", ClassError, SidePort, SignalNone, false, "RoCE packets received with errors", ""},
		spec{"rx_roce_discards", ClassDrop, SidePort, SignalNone, false, "RoCE packets discarded on receive", ""},
		spec{"to_retransmits", ClassRetry, SideRequester, SignalTimeoutRetry, false, "transport timeouts: no ACK in time, the request is resent", ""},
		spec{"seq_err_naks_rcvd", ClassRetry, SideRequester, SignalSequence, false, "sequence-error NAKs received; resent from the lost packet", ""},
		spec{"max_retry_exceeded", ClassError, SideRequester, SignalRetryExceeded, true, "requests failed after retry_cnt transport timeouts", ""},
		spec{"rnr_naks_rcvd", ClassRetry, SideRequester, SignalRNR, false, "RNR NAKs received: the peer had no receive posted; retried", ""},
		spec{"missing_resp", ClassRetry, SideRequester, SignalSequence, false, "responses found missing (implied NAK); resent", ""},
		spec{"unrecoverable_err", ClassError, SideDevice, SignalNone, true, "errors the device could not recover from", ""},
		spec{"bad_resp_err", ClassError, SideRequester, SignalNone, true, "bad responses received (unexpected opcode or malformed)", ""},
		spec{"local_qp_op_err", ClassError, SideRequester, SignalNone, true, "local QP operation errors", ""},
		spec{"local_protection_err", ClassError, SideRequester, SignalNone, true, "local protection errors (lkey or MR access)", ""},
		spec{"mem_mgmt_op_err", ClassError, SideRequester, SignalNone, true, "memory management operation errors (bind, fast register, invalidate)", ""},
		spec{"remote_invalid_req_err", ClassError, SideRequester, SignalRemoteInvalid, true, "requests the peer refused as invalid", ""},
		spec{"remote_access_err", ClassError, SideRequester, SignalRemoteAccess, true, "RDMA requests the peer refused for access", ""},
		spec{"remote_op_err", ClassError, SideRequester, SignalNone, true, "remote operation errors reported by the peer", ""},
		spec{"dup_req", ClassRetry, SideResponder, SignalNone, false, "duplicate requests received: the peer resent them", ""},
		spec{"res_exceed_max", ClassError, SideResponder, SignalNone, true, "incoming requests beyond the outstanding read/atomic limit", ""},
		spec{"res_length_mismatch", ClassError, SideResponder, SignalNone, true, "incoming messages whose length did not match", ""},
		spec{"res_exceeds_wqe", ClassError, SideResponder, SignalNone, true, "incoming messages longer than the receive WQE", ""},
		spec{"res_opcode_err", ClassError, SideResponder, SignalRemoteInvalid, true, "incoming requests with an opcode error", ""},
		spec{"res_rx_invalid_rkey", ClassError, SideResponder, SignalRemoteAccess, true, "incoming writes with an invalid rkey", ""},
		spec{"res_rx_domain_err", ClassError, SideResponder, SignalRemoteAccess, true, "incoming writes whose MR is in another protection domain", ""},
		spec{"res_rx_no_perm", ClassError, SideResponder, SignalRemoteAccess, true, "incoming writes to an MR without remote write permission", ""},
		spec{"res_rx_range_err", ClassError, SideResponder, SignalRemoteAccess, true, "incoming writes outside the MR's range", ""},
		spec{"res_tx_invalid_rkey", ClassError, SideResponder, SignalRemoteAccess, true, "incoming reads with an invalid rkey", ""},
		spec{"res_tx_domain_err", ClassError, SideResponder, SignalRemoteAccess, true, "incoming reads whose MR is in another protection domain", ""},
		spec{"res_tx_no_perm", ClassError, SideResponder, SignalRemoteAccess, true, "incoming reads of an MR without remote read permission", ""},
		spec{"res_tx_range_err", ClassError, SideResponder, SignalRemoteAccess, true, "incoming reads outside the MR's range", ""},
		spec{"res_irrq_oflow", ClassError, SideResponder, SignalNone, true, "incoming reads/atomics overflowing the responder's queue for them", ""},
		spec{"res_unsup_opcode", ClassError, SideResponder, SignalRemoteInvalid, true, "incoming requests with an unsupported opcode", ""},
		spec{"res_unaligned_atomic", ClassError, SideResponder, SignalRemoteInvalid, true, "incoming atomics on an unaligned address", ""},
		spec{"res_rem_inv_err", ClassError, SideResponder, SignalNone, true, "incoming Send with Invalidate errors", ""},
		spec{"res_mem_err", ClassError, SideResponder, SignalNone, true, "responder memory errors", ""},
		spec{"res_srq_err", ClassError, SideResponder, SignalNone, true, "responder SRQ errors", ""},
		spec{"res_cmp_err", ClassError, SideResponder, SignalNone, true, "responder completion errors", ""},
		spec{"res_invalid_dup_rkey", ClassError, SideResponder, SignalRemoteAccess, true, "duplicate requests with an rkey no longer valid", ""},
		spec{"res_wqe_format_err", ClassError, SideResponder, SignalNone, true, "receive WQEs in a bad format", ""},
		spec{"res_cq_load_err", ClassError, SideResponder, SignalNone, true, "errors loading a CQ's context on the responder", ""},
		spec{"res_srq_load_err", ClassError, SideResponder, SignalNone, true, "errors loading an SRQ's context on the responder", ""},
		spec{"res_tx_pci_err", ClassError, SideResponder, SignalNone, true, "PCI errors while the responder sent", ""},
		spec{"res_rx_pci_err", ClassError, SideResponder, SignalNone, true, "PCI errors while the responder received", ""},
		spec{"oos_drop_count", ClassRetry, SideResponder, SignalSequence, false, "packets dropped for arriving out of sequence", ""},
		spec{"tx_atomic_req", ClassTraffic, SideRequester, SignalNone, false, "atomic requests sent", ""},
		spec{"tx_read_req", ClassTraffic, SideRequester, SignalNone, false, "RDMA Read requests sent", ""},
		spec{"tx_read_resp", ClassTraffic, SideResponder, SignalNone, false, "RDMA Read responses sent", ""},
		spec{"tx_write_req", ClassTraffic, SideRequester, SignalNone, false, "RDMA Write requests sent", ""},
		spec{"tx_send_req", ClassTraffic, SideRequester, SignalNone, false, "Send requests sent", ""},
		spec{"tx_roce_only_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets sent, CNPs left out", ""},
		spec{"tx_roce_only_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes sent, CNPs left out", ""},
		spec{"rx_atomic_req", ClassTraffic, SideResponder, SignalNone, false, "atomic requests received", ""},
		spec{"rx_read_req", ClassTraffic, SideResponder, SignalNone, false, "RDMA Read requests received", ""},
		spec{"rx_read_resp", ClassTraffic, SideRequester, SignalNone, false, "RDMA Read responses received", ""},
		spec{"rx_write_req", ClassTraffic, SideResponder, SignalNone, false, "RDMA Write requests received", ""},
		spec{"rx_send_req", ClassTraffic, SideResponder, SignalNone, false, "Send requests received", ""},
		spec{"rx_roce_only_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets received, CNPs left out", ""},
		spec{"rx_roce_only_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes received, CNPs left out", ""},
		spec{"rx_roce_good_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets received without error", ""},
		spec{"rx_roce_good_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes received without error", ""},
		spec{"rx_out_of_buffer", ClassDrop, SideResponder, SignalNone, false, "packets dropped because the QP had no receive WQE", ""},
		spec{"tx_cnp_pkts", ClassCongestion, SidePort, SignalNone, false, "CNP packets sent", ""},
		spec{"rx_cnp_pkts", ClassCongestion, SidePort, SignalNone, false, "CNP packets received", ""},
		spec{"rx_ecn_marked_pkts", ClassCongestion, SidePort, SignalNone, false, "RoCE packets received with an ECN mark", ""},
		spec{"pacing_reschedule", ClassOther, SideDevice, SignalNone, false, "doorbell pacing: times the driver rescheduled doorbells", ""},
		spec{"pacing_complete", ClassOther, SideDevice, SignalNone, false, "doorbell pacing: pacing periods completed", ""},
		spec{"pacing_alerts", ClassOther, SideDevice, SignalNone, false, "doorbell pacing: alerts that the doorbell FIFO filled", ""},
		spec{"db_fifo_register", ClassOther, SideDevice, SignalNone, false, "doorbell FIFO occupancy (a gauge read from the chip)", ""},
	)
	const oot = "Broadcom's out-of-tree bnxt_re hw_counters.c (mlx5's names for the same counts)"
	var renamed []spec
	for _, n := range []string{"local_ack_timeout_err", "packet_seq_err", "rnr_nak_retry_err", "implied_nak_seq_err",
		"req_remote_invalid_request", "req_remote_access_errors", "duplicate_request", "resp_local_length_error",
		"out_of_sequence", "rx_atomic_requests", "rx_read_requests", "rx_write_requests", "out_of_buffer",
		"np_cnp_sent", "rp_cnp_handled", "np_ecn_marked_roce_packets", "req_cqe_error", "req_cqe_flush_error",
		"resp_cqe_error", "resp_cqe_flush_error", "resp_remote_access_errors", "roce_adp_retrans", "roce_adp_retrans_to",
		"roce_slow_restart", "roce_slow_restart_cnps", "roce_slow_restart_trans", "rp_cnp_ignored", "rx_icrc_encapsulated"} {
		renamed = append(renamed, mlx5Row(n))
	}
	renamed = append(renamed,
		spec{"rx_good_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets received without error", ""},
		spec{"rx_good_bytes", ClassTraffic, SidePort, SignalNone, false, "RoCE bytes received without error", ""},
		spec{"np_cnp_pkts", ClassCongestion, SidePort, SignalNone, false, "CNP packets sent", ""},
	)
	return append(out, group("bnxt_re", oot, 0, renamed...)...)
}
