package counters

// rxeTable is Soft-RoCE's: drivers/infiniband/sw/rxe/rxe_hw_counters.c
// names them; rxe_comp.c (the requester's completer), rxe_resp.c (the
// responder) and rxe_net.c count them. All are atomic64, per port.
func rxeTable() []entry {
	const src = "drivers/infiniband/sw/rxe/rxe_hw_counters.c; counted in rxe_comp.c, rxe_resp.c, rxe_net.c"
	return group("rxe", src, 64,
		spec{"sent_pkts", ClassTraffic, SidePort, SignalNone, false, "packets rxe handed to the network stack", ""},
		spec{"rcvd_pkts", ClassTraffic, SidePort, SignalNone, false, "RoCE packets rxe received and accepted", ""},
		spec{"duplicate_request", ClassRetry, SideResponder, SignalNone, false, "requests received again: the peer requester resent them",
			"Raised on the responder when a request arrives with a PSN it has already executed: the requester timed out or saw a NAK and resent. rxe answers it again (an ACK, or the read response once more). It is recoverable and tells you the peer is retrying; look at the peer's completer_retry_err and at loss on the path."},
		spec{"out_of_seq_request", ClassRetry, SideResponder, SignalSequence, false, "requests received ahead of the expected PSN (one was lost); a sequence NAK was sent", ""},
		spec{"rcvd_rnr_err", ClassRetry, SideRequester, SignalRNR, false, "RNR NAKs received: the peer had no receive posted; the send is retried", ""},
		spec{"send_rnr_err", ClassRetry, SideResponder, SignalRNR, false, "RNR NAKs sent: a Send arrived and this QP had no receive posted",
			"Raised on the responder each time rxe answers a Send with an RNR NAK because the QP's receive queue (or SRQ) is empty. The peer will retry after its RNR timer. Post receives earlier or more of them; the peer's rcvd_rnr_err rises with this one."},
		spec{"rcvd_seq_err", ClassRetry, SideRequester, SignalSequence, false, "sequence-error NAKs received: the responder missed a packet; resent from there", ""},
		spec{"ack_deferred", ClassOther, SideRequester, SignalNone, false, "times the completer deferred its work to run later", ""},
		spec{"retry_exceeded_err", ClassError, SideRequester, SignalRetryExceeded, true, "requests failed after retry_cnt transport timeouts", ""},
		spec{"retry_rnr_exceeded_err", ClassError, SideRequester, SignalRNRExceeded, true, "requests failed after rnr_retry RNR NAKs", ""},
		spec{"completer_retry_err", ClassRetry, SideRequester, SignalTimeoutRetry, false, "retransmissions the requester started: after an ACK timeout or a sequence NAK",
			"Raised each time rxe's completer goes back and resends unacknowledged requests: after its retransmit timer (the QP's timeout) expired with no ACK, and also after a sequence-error NAK (then rcvd_seq_err rises too). It is recoverable. A steady rise with no rcvd_seq_err means ACKs do not come back: the peer QP is gone or in Error, or the path drops packets. Check the peer QP's state and the link; retry_exceeded_err rising next means requests are failing."},
		spec{"send_err", ClassError, SidePort, SignalNone, false, "packets rxe failed to hand to the network stack",
			"Raised when rxe's transmit to the underlying netdev fails (no route, the netdev down or its queue full). The packet is lost and the requester's timer will resend it. Check the parent netdev's state, its route and neighbour to the peer (ip route get, ip neigh)."},
		spec{"link_downed", ClassError, SidePort, SignalNone, false, "times the port went down with its parent netdev", ""},
		spec{"rdma_sends", ClassTraffic, SideRequester, SignalNone, false, "RDMA requests this device's QPs sent", ""},
		spec{"rdma_recvs", ClassTraffic, SideResponder, SignalNone, false, "RDMA requests this device's QPs received", ""},
	)
}
