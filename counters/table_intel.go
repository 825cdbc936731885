package counters

// irdmaGen1 are the statistics Intel's iWARP/RoCE hardware has had since
// the X722 (i40iw, then irdma's gen 1): IP, TCP (iWARP only) and RDMA
// operation counts. irdma reads the 32- and 48-bit hardware registers and
// keeps 64-bit sums, handling their wrap itself (irdma_process_stats).
var irdmaGen1 = []spec{
	{"ip4InDiscards", ClassDrop, SidePort, SignalNone, false, "IPv4 packets received and discarded", ""},
	{"ip4InTruncatedPkts", ClassDrop, SidePort, SignalNone, false, "IPv4 packets received truncated", ""},
	{"ip4OutNoRoutes", ClassDrop, SidePort, SignalNone, false, "IPv4 packets not sent for lack of a route or neighbour", ""},
	{"ip6InDiscards", ClassDrop, SidePort, SignalNone, false, "IPv6 packets received and discarded", ""},
	{"ip6InTruncatedPkts", ClassDrop, SidePort, SignalNone, false, "IPv6 packets received truncated", ""},
	{"ip6OutNoRoutes", ClassDrop, SidePort, SignalNone, false, "IPv6 packets not sent for lack of a route or neighbour", ""},
	{"tcpRetransSegs", ClassRetry, SidePort, SignalTimeoutRetry, false, "TCP segments retransmitted (iWARP)",
		"Raised when the iWARP offload's TCP resends a segment, after a retransmission timeout or duplicate ACKs. It is recoverable; a steady rate means loss or congestion on the path. Check the path and the peer, as for any TCP connection."},
	{"tcpInOptErrors", ClassError, SidePort, SignalNone, false, "TCP segments received with bad options (iWARP)", ""},
	{"tcpInProtoErrors", ClassError, SidePort, SignalNone, false, "TCP segments received with protocol errors (iWARP)", ""},
	{"rxVlanErrors", ClassDrop, SidePort, SignalNone, false, "packets received with a VLAN error", ""},
	{"ip4InOctets", ClassTraffic, SidePort, SignalNone, false, "IPv4 bytes received", ""},
	{"ip4InPkts", ClassTraffic, SidePort, SignalNone, false, "IPv4 packets received", ""},
	{"ip4InReasmRqd", ClassTraffic, SidePort, SignalNone, false, "IPv4 fragments received that needed reassembly", ""},
	{"ip4InMcastPkts", ClassTraffic, SidePort, SignalNone, false, "IPv4 multicast packets received", ""},
	{"ip4OutOctets", ClassTraffic, SidePort, SignalNone, false, "IPv4 bytes sent", ""},
	{"ip4OutPkts", ClassTraffic, SidePort, SignalNone, false, "IPv4 packets sent", ""},
	{"ip4OutSegRqd", ClassTraffic, SidePort, SignalNone, false, "IPv4 packets that had to be fragmented to send", ""},
	{"ip4OutMcastPkts", ClassTraffic, SidePort, SignalNone, false, "IPv4 multicast packets sent", ""},
	{"ip6InOctets", ClassTraffic, SidePort, SignalNone, false, "IPv6 bytes received", ""},
	{"ip6InPkts", ClassTraffic, SidePort, SignalNone, false, "IPv6 packets received", ""},
	{"ip6InReasmRqd", ClassTraffic, SidePort, SignalNone, false, "IPv6 fragments received that needed reassembly", ""},
	{"ip6InMcastPkts", ClassTraffic, SidePort, SignalNone, false, "IPv6 multicast packets received", ""},
	{"ip6OutOctets", ClassTraffic, SidePort, SignalNone, false, "IPv6 bytes sent", ""},
	{"ip6OutPkts", ClassTraffic, SidePort, SignalNone, false, "IPv6 packets sent", ""},
	{"ip6OutSegRqd", ClassTraffic, SidePort, SignalNone, false, "IPv6 packets that had to be fragmented to send", ""},
	{"ip6OutMcastPkts", ClassTraffic, SidePort, SignalNone, false, "IPv6 multicast packets sent", ""},
	{"tcpInSegs", ClassTraffic, SidePort, SignalNone, false, "TCP segments received (iWARP)", ""},
	{"tcpOutSegs", ClassTraffic, SidePort, SignalNone, false, "TCP segments sent (iWARP)", ""},
	{"iwInRdmaReads", ClassTraffic, SideResponder, SignalNone, false, "RDMA Read requests received", ""},
	{"iwInRdmaSends", ClassTraffic, SideResponder, SignalNone, false, "Sends received", ""},
	{"iwInRdmaWrites", ClassTraffic, SideResponder, SignalNone, false, "RDMA Writes received", ""},
	{"iwOutRdmaReads", ClassTraffic, SideRequester, SignalNone, false, "RDMA Read requests sent", ""},
	{"iwOutRdmaSends", ClassTraffic, SideRequester, SignalNone, false, "Sends sent", ""},
	{"iwOutRdmaWrites", ClassTraffic, SideRequester, SignalNone, false, "RDMA Writes sent", ""},
	{"iwRdmaBnd", ClassOther, SideRequester, SignalNone, false, "memory window binds", ""},
	{"iwRdmaInv", ClassOther, SideRequester, SignalNone, false, "memory invalidations", ""},
}

// irdmaGen2 are what the E810 (irdma gen 2, RoCEv2) added.
var irdmaGen2 = []spec{
	{"cnpHandled", ClassCongestion, SidePort, SignalNone, false, "CNPs received and acted on: the sender slowed down", ""},
	{"cnpIgnored", ClassCongestion, SidePort, SignalNone, false, "CNPs received and ignored", ""},
	{"cnpSent", ClassCongestion, SidePort, SignalNone, false, "CNPs sent back to senders of ECN-marked packets", ""},
	{"ip4InMcastOctets", ClassTraffic, SidePort, SignalNone, false, "IPv4 multicast bytes received", ""},
	{"ip4OutMcastOctets", ClassTraffic, SidePort, SignalNone, false, "IPv4 multicast bytes sent", ""},
	{"ip6InMcastOctets", ClassTraffic, SidePort, SignalNone, false, "IPv6 multicast bytes received", ""},
	{"ip6OutMcastOctets", ClassTraffic, SidePort, SignalNone, false, "IPv6 multicast bytes sent", ""},
	{"RxUDP", ClassTraffic, SidePort, SignalNone, false, "UDP packets received (RoCEv2)", ""},
	{"TxUDP", ClassTraffic, SidePort, SignalNone, false, "UDP packets sent (RoCEv2)", ""},
	{"RxECNMrkd", ClassCongestion, SidePort, SignalNone, false, "packets received with an ECN congestion mark", ""},
}

// irdmaTable is irdma's: drivers/infiniband/hw/irdma/verbs.c,
// irdma_hw_stat_names (irdma_hw_stat_descs in later kernels).
func irdmaTable() []entry {
	const src = "drivers/infiniband/hw/irdma/verbs.c (irdma_hw_stat_names)"
	return group("irdma", src, 0, append(append([]spec{}, irdmaGen1...), irdmaGen2...)...)
}

// i40iwTable is the X722's before irdma took it over (Linux 5.14 removed
// drivers/infiniband/hw/i40iw): i40iw_verbs.c named the same gen 1
// statistics. Its ports answer no PMA: counters/ files read "N/A (no
// PMA)".
func i40iwTable() []entry {
	return group("i40iw", "drivers/infiniband/hw/i40iw/i40iw_verbs.c (Linux 5.13 and before)", 0, irdmaGen1...)
}
