package counters

// portCounters are the IBTA PortCounters (and PortCountersExtended) that
// drivers/infiniband/core/sysfs.c shows under ports/N/counters/, read
// through the port's performance agent (a MAD to the driver's PMA;
// "N/A (no PMA)" where there is none). Widths are the attribute's fields
// (IBTA vol. 1, 16.1.3.5 PortCounters); the error counters saturate at
// their top. The data and packet counters are 32 bits from PortCounters
// or 64 from PortCountersExtended, the kernel choosing by the port's
// capability, so their width is left unknown.
func portCounters() []entry {
	const src = "drivers/infiniband/core/sysfs.c (IBTA PortCounters)"
	sat := func(bits int, rows ...spec) []entry {
		es := group("", src, bits, rows...)
		for i := range es {
			es[i].Saturates = true
		}
		return es
	}
	var out []entry
	out = append(out, sat(16,
		spec{"symbol_error", ClassError, SidePort, SignalNone, false, "minor link errors found on a physical lane of the port",
			"Raised by the port's PHY for every bad symbol it decodes. A few over days are normal; a rate that keeps rising points at a bad cable, a dirty connector or a failing transceiver, and usually comes with link_error_recovery. Check the cable and optics (ibdiagnet, mlxlink), and the same counter on the peer's port."},
		spec{"port_rcv_errors", ClassError, SidePort, SignalNone, false, "packets received with errors (bad CRC, malformed, length)",
			"Raised for each received packet the port rejects: CRC errors, malformed or oversized packets. The packet is dropped, so the sender sees only a retry. A rise points at the link (cable, optics) or a misconfigured MTU; check symbol_error and the peer port's counters."},
		spec{"port_rcv_remote_physical_errors", ClassError, SidePort, SignalNone, false, "packets received marked bad by a link further upstream",
			"Raised for packets that arrive with an EBP (end bad packet) delimiter: a link before this one corrupted them. The fault is upstream: check the ports along the path towards the sender."},
		spec{"port_rcv_switch_relay_errors", ClassDrop, SidePort, SignalNone, false, "packets a switch port could not relay (bad DLID, VL mapping, loop)", ""},
		spec{"port_xmit_discards", ClassDrop, SidePort, SignalNone, false, "outbound packets dropped: port down or congested",
			"Raised when the port throws away packets it should send: the link was down, or packets waited too long (head-of-queue lifetime) behind congestion. Check the link's state history (link_downed) and port_xmit_wait for congestion."},
		spec{"VL15_dropped", ClassDrop, SidePort, SignalNone, false, "subnet management packets (VL15) dropped for lack of buffers",
			"Raised when management packets on VL15 are discarded, usually because too many arrive at once. A few during a subnet sweep are harmless; a steady rise means the subnet manager or a monitoring tool floods the port."},
	)...)
	out = append(out, sat(8,
		spec{"link_error_recovery", ClassError, SidePort, SignalNone, false, "times the link retrained after errors and came back",
			"Raised each time the port's link training state machine recovers the link after errors without taking it down. Repeated recoveries mean a marginal link: check the cable, optics and symbol_error."},
		spec{"link_downed", ClassError, SidePort, SignalNone, false, "times the link failed to recover and went down",
			"Raised each time the link went down after failing to recover. Every QP using the port sees timeouts while it is down, and may exhaust its retries. Check the cable, the peer port and the switch's logs."},
		spec{"port_xmit_constraint_errors", ClassDrop, SidePort, SignalNone, false, "outbound packets dropped by partition or filtering rules",
			"Raised when the port does not send a packet because of outbound partition enforcement or raw packet filtering. Check the P_Key the QP uses against the port's P_Key table."},
		spec{"port_rcv_constraint_errors", ClassDrop, SidePort, SignalNone, false, "inbound packets dropped by partition or filtering rules",
			"Raised when the port rejects a received packet for its P_Key (partition enforcement) or raw packet filtering. Check that both ends use a P_Key both ports hold."},
	)...)
	out = append(out, sat(4,
		spec{"local_link_integrity_errors", ClassError, SidePort, SignalNone, false, "times physical errors passed the local link's integrity threshold", ""},
		spec{"excessive_buffer_overrun_errors", ClassDrop, SidePort, SignalNone, false, "times consecutive receive buffer overruns passed the threshold",
			"Raised when the port's receive buffers overflowed several times in a row: the sender ignored flow control credits. Usually a misbehaving peer or a VL configuration mismatch."},
	)...)
	out = append(out, sat(32,
		spec{"port_xmit_wait", ClassCongestion, SidePort, SignalNone, false, "ticks the port had data to send but no flow control credits",
			"Raised for every tick in which the port had packets ready but the peer granted no credits to send them: the next hop is congested. A high rate with modest traffic points at a congested switch or a slow receiver (backpressure). Check the switch ports along the path."},
	)...)
	out = append(out, group("", src, 0,
		spec{"port_xmit_data", ClassTraffic, SidePort, SignalNone, false, "data sent, in units of 4 bytes (multiply by 4 for bytes)", ""},
		spec{"port_rcv_data", ClassTraffic, SidePort, SignalNone, false, "data received, in units of 4 bytes (multiply by 4 for bytes)", ""},
		spec{"port_xmit_packets", ClassTraffic, SidePort, SignalNone, false, "packets sent", ""},
		spec{"port_rcv_packets", ClassTraffic, SidePort, SignalNone, false, "packets received", ""},
		spec{"unicast_xmit_packets", ClassTraffic, SidePort, SignalNone, false, "unicast packets sent (PortCountersExtended)", ""},
		spec{"unicast_rcv_packets", ClassTraffic, SidePort, SignalNone, false, "unicast packets received (PortCountersExtended)", ""},
		spec{"multicast_xmit_packets", ClassTraffic, SidePort, SignalNone, false, "multicast packets sent (PortCountersExtended)", ""},
		spec{"multicast_rcv_packets", ClassTraffic, SidePort, SignalNone, false, "multicast packets received (PortCountersExtended)", ""},
	)...)
	return out
}
