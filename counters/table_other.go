package counters

// efaTable is the AWS Elastic Fabric Adapter's:
// drivers/infiniband/hw/efa/efa_verbs.c (EFA_DEFINE_DEVICE_STATS for the
// device's hw_counters/, EFA_DEFINE_PORT_STATS for the port's). EFA's SRD
// transport retries inside the device, below the QP.
func efaTable() []entry {
	const src = "drivers/infiniband/hw/efa/efa_verbs.c"
	return group("efa", src, 0,
		spec{"submitted_cmds", ClassOther, SideDevice, SignalNone, false, "admin commands the driver submitted to the device", ""},
		spec{"completed_cmds", ClassOther, SideDevice, SignalNone, false, "admin commands the device completed", ""},
		spec{"cmds_err", ClassError, SideDevice, SignalNone, false, "admin commands that failed", ""},
		spec{"no_completion_cmds", ClassError, SideDevice, SignalNone, false, "admin commands that never completed", ""},
		spec{"keep_alive_rcvd", ClassOther, SideDevice, SignalNone, false, "keep-alive events received from the device", ""},
		spec{"alloc_pd_err", ClassError, SideDevice, SignalNone, false, "protection domain allocations that failed", ""},
		spec{"create_qp_err", ClassError, SideDevice, SignalNone, false, "QP creations that failed", ""},
		spec{"create_cq_err", ClassError, SideDevice, SignalNone, false, "CQ creations that failed", ""},
		spec{"reg_mr_err", ClassError, SideDevice, SignalNone, false, "memory registrations that failed", ""},
		spec{"alloc_ucontext_err", ClassError, SideDevice, SignalNone, false, "user context allocations that failed", ""},
		spec{"create_ah_err", ClassError, SideDevice, SignalNone, false, "address handle creations that failed", ""},
		spec{"mmap_err", ClassError, SideDevice, SignalNone, false, "mmaps of device memory that failed", ""},
		spec{"tx_bytes", ClassTraffic, SidePort, SignalNone, false, "bytes sent", ""},
		spec{"tx_pkts", ClassTraffic, SidePort, SignalNone, false, "packets sent", ""},
		spec{"rx_bytes", ClassTraffic, SidePort, SignalNone, false, "bytes received", ""},
		spec{"rx_pkts", ClassTraffic, SidePort, SignalNone, false, "packets received", ""},
		spec{"rx_drops", ClassDrop, SidePort, SignalNone, false, "packets received and dropped", ""},
		spec{"send_bytes", ClassTraffic, SideRequester, SignalNone, false, "bytes of Sends sent", ""},
		spec{"send_wrs", ClassTraffic, SideRequester, SignalNone, false, "Send work requests sent", ""},
		spec{"recv_bytes", ClassTraffic, SideResponder, SignalNone, false, "bytes of Sends received", ""},
		spec{"recv_wrs", ClassTraffic, SideResponder, SignalNone, false, "receive work requests completed", ""},
		spec{"rdma_read_wrs", ClassTraffic, SideRequester, SignalNone, false, "RDMA Read work requests", ""},
		spec{"rdma_read_bytes", ClassTraffic, SideRequester, SignalNone, false, "bytes read by RDMA Read", ""},
		spec{"rdma_read_wr_err", ClassError, SideRequester, SignalNone, true, "RDMA Read work requests that failed", ""},
		spec{"rdma_read_resp_bytes", ClassTraffic, SideResponder, SignalNone, false, "bytes sent in answer to RDMA Reads", ""},
		spec{"rdma_write_wrs", ClassTraffic, SideRequester, SignalNone, false, "RDMA Write work requests", ""},
		spec{"rdma_write_bytes", ClassTraffic, SideRequester, SignalNone, false, "bytes written by RDMA Write", ""},
		spec{"rdma_write_wr_err", ClassError, SideRequester, SignalNone, true, "RDMA Write work requests that failed", ""},
		spec{"rdma_write_recv_bytes", ClassTraffic, SideResponder, SignalNone, false, "bytes received by RDMA Write", ""},
		spec{"retrans_bytes", ClassRetry, SidePort, SignalTimeoutRetry, false, "bytes the SRD transport sent again", ""},
		spec{"retrans_pkts", ClassRetry, SidePort, SignalTimeoutRetry, false, "packets the SRD transport sent again", ""},
		spec{"retrans_timeout_events", ClassRetry, SidePort, SignalTimeoutRetry, false, "SRD retransmission timeouts", ""},
		spec{"unresponsive_remote_events", ClassError, SidePort, SignalNone, false, "peers the SRD transport found unresponsive",
			"Raised when the device gives up waiting on a remote peer that answers nothing. Work to that peer fails; check whether the peer instance and its EFA device are alive and its security group lets EFA traffic in."},
		spec{"impaired_remote_conn_events", ClassError, SidePort, SignalNone, false, "connections to a peer the device found impaired", ""},
	)
}

// hnsTable is HiSilicon's hns_roce: drivers/infiniband/hw/hns/
// hns_roce_main.c, hns_roce_port_stats_descs: the driver's own event and
// failure counts (the dfx counters, also in hns_roce_debugfs.c), then the
// hardware's packet counters (HIP09 and later, not on a VF). The driver
// says nothing of what its hardware counters count beyond their names;
// where a name does not say it plainly (ecn_doorbell, rx_buffer,
// trp_rx_sof, cq_poe) the row is class other and its meaning repeats the
// name and no more.
func hnsTable() []entry {
	const src = "drivers/infiniband/hw/hns/hns_roce_main.c (hns_roce_port_stats_descs)"
	fail := func(name, what string) spec {
		return spec{name, ClassError, SideDevice, SignalNone, false, what + " that failed", ""}
	}
	// byName is a hardware counter whose meaning the driver does not give.
	byName := func(name, says string) spec {
		return spec{name, ClassOther, SidePort, SignalNone, false,
			"by its name, " + says + "; the driver documents no more", ""}
	}
	return append(group("hns", src, 0,
		spec{"aeqe", ClassOther, SideDevice, SignalNone, false, "asynchronous event queue entries handled", ""},
		spec{"ceqe", ClassOther, SideDevice, SignalNone, false, "completion event queue entries handled", ""},
		spec{"cmds", ClassOther, SideDevice, SignalNone, false, "commands sent to the firmware", ""},
		spec{"cmds_err", ClassError, SideDevice, SignalNone, false, "firmware commands that failed", ""},
		spec{"posted_mbx", ClassOther, SideDevice, SignalNone, false, "mailbox commands posted", ""},
		spec{"polled_mbx", ClassOther, SideDevice, SignalNone, false, "mailbox commands polled to completion", ""},
		spec{"mbx_event", ClassOther, SideDevice, SignalNone, false, "mailbox completion events", ""},
		fail("qp_create_err", "QP creations"), fail("qp_modify_err", "QP modifications"),
		fail("cq_create_err", "CQ creations"), fail("srq_create_err", "SRQ creations"),
		fail("xrcd_alloc_err", "XRC domain allocations"), fail("mr_reg_err", "memory registrations"),
		fail("mr_rereg_err", "memory re-registrations"), fail("ah_create_err", "address handle creations"),
		fail("mmap_err", "mmaps"), fail("uctx_alloc_err", "user context allocations"),
		spec{"rx_rc_pkt", ClassTraffic, SidePort, SignalNone, false, "RC packets received", ""},
		spec{"rx_uc_pkt", ClassTraffic, SidePort, SignalNone, false, "UC packets received", ""},
		spec{"rx_ud_pkt", ClassTraffic, SidePort, SignalNone, false, "UD packets received", ""},
	), append(hnsModifyTable(), hnsHWTable(byName)...)...)
}

// hnsModifyTable is the two dfx counters the stats table names and
// hns_roce_hw_v2.c raises: hns_roce_v2_modify_cq (a CQ's moderation,
// ibv_modify_cq(3)) and hns_roce_v2_modify_srq (an SRQ's limit or size,
// ibv_modify_srq(3)) count one when the mailbox command fails, as the
// dfx-counters patch (v6.7) added them.
func hnsModifyTable() []entry {
	const src = "drivers/infiniband/hw/hns/hns_roce_hw_v2.c (hns_roce_v2_modify_cq, hns_roce_v2_modify_srq); named in hns_roce_main.c (hns_roce_port_stats_descs)"
	return group("hns", src, 0,
		spec{"cq_modify_err", ClassError, SideDevice, SignalNone, false, "CQ moderation changes (ibv_modify_cq) that failed", ""},
		spec{"srq_modify_err", ClassError, SideDevice, SignalNone, false, "SRQ modifications (ibv_modify_srq: limit or size) that failed", ""},
	)
}

// hnsHWTable is the rest of hns's hardware counters, after rx_ud_pkt.
func hnsHWTable(byName func(name, says string) spec) []entry {
	const src = "drivers/infiniband/hw/hns/hns_roce_main.c (hns_roce_port_stats_descs, HNS_ROCE_HW_CNT)"
	return group("hns", src, 0,
		spec{"rx_xrc_pkt", ClassTraffic, SidePort, SignalNone, false, "XRC packets received", ""},
		spec{"rx_pkt", ClassTraffic, SidePort, SignalNone, false, "packets received in all, by its name (the driver does not list what it includes)", ""},
		spec{"rx_err_pkt", ClassError, SidePort, SignalNone, false, "received packets the hardware counted as in error (the driver says not which errors)", ""},
		spec{"rx_cnp_pkt", ClassCongestion, SidePort, SignalNone, false, "congestion notification packets (CNPs) received", ""},
		spec{"tx_rc_pkt", ClassTraffic, SidePort, SignalNone, false, "RC packets sent", ""},
		spec{"tx_uc_pkt", ClassTraffic, SidePort, SignalNone, false, "UC packets sent", ""},
		spec{"tx_ud_pkt", ClassTraffic, SidePort, SignalNone, false, "UD packets sent", ""},
		spec{"tx_xrc_pkt", ClassTraffic, SidePort, SignalNone, false, "XRC packets sent", ""},
		spec{"tx_pkt", ClassTraffic, SidePort, SignalNone, false, "packets sent in all, by its name (the driver does not list what it includes)", ""},
		spec{"tx_err_pkt", ClassError, SidePort, SignalNone, false, "packets to send the hardware counted as in error (the driver says not which errors)", ""},
		spec{"tx_cnp_pkt", ClassCongestion, SidePort, SignalNone, false, "congestion notification packets (CNPs) sent", ""},
		spec{"trp_get_mpt_err_pkt", ClassError, SidePort, SignalNone, false, "by its name, packets for which the transport engine failed to fetch a memory protection table (MPT) entry; the driver documents no more", ""},
		spec{"trp_get_irrl_err_pkt", ClassError, SidePort, SignalNone, false, "by its name, packets for which the transport engine failed to fetch an IRRL entry; the driver documents no more", ""},
		byName("ecn_doorbell", "ECN doorbells"),
		byName("rx_buffer", "receive buffer events"),
		byName("trp_rx_sof", "transport-engine receive SOF events"),
		byName("cq_cqe", "completion queue entries written"),
		byName("cq_poe", "CQ POE events"),
		byName("cq_notify", "completion queue notifications"),
	)
}

// erdmaTable is Alibaba's elastic RDMA (iWARP):
// drivers/infiniband/hw/erdma/erdma_verbs.c, erdma_descs.
func erdmaTable() []entry {
	const src = "drivers/infiniband/hw/erdma/erdma_verbs.c (erdma_descs)"
	return group("erdma", src, 0,
		spec{"tx_reqs_cnt", ClassTraffic, SideRequester, SignalNone, false, "requests sent", ""},
		spec{"tx_packets_cnt", ClassTraffic, SidePort, SignalNone, false, "packets sent", ""},
		spec{"tx_bytes_cnt", ClassTraffic, SidePort, SignalNone, false, "bytes sent", ""},
		spec{"tx_disable_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on send while sending was disabled", ""},
		spec{"tx_bps_limit_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on send by the bandwidth limit", ""},
		spec{"tx_pps_limit_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on send by the packet-rate limit", ""},
		spec{"rx_packets_cnt", ClassTraffic, SidePort, SignalNone, false, "packets received", ""},
		spec{"rx_bytes_cnt", ClassTraffic, SidePort, SignalNone, false, "bytes received", ""},
		spec{"rx_disable_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on receive while receiving was disabled", ""},
		spec{"rx_bps_limit_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on receive by the bandwidth limit", ""},
		spec{"rx_pps_limit_drop_cnt", ClassDrop, SidePort, SignalNone, false, "packets dropped on receive by the packet-rate limit", ""},
	)
}
