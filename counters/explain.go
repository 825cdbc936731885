package counters

import (
	"fmt"
	"strings"
)

// signalText is what each signal means to a diagnosis, said once for
// every driver's counter that gives it: what raises it, what it usually
// means, what to check next (IBTA vol. 1 ch. 9.7, the transport's ACK,
// NAK and retry rules; ibv_modify_qp(3) for the attributes named).
var signalText = map[Signal]string{
	SignalRNR: "Raised when a Send (or an RDMA Write with immediate) reaches a QP that has no receive " +
		"posted: the responder answers with an RNR NAK and the requester waits min_rnr_timer, then sends " +
		"again, up to rnr_retry times (7 means without end). It is recoverable: a rise alone is not a " +
		"failure. It usually means the receiving program posts receives too slowly or too few. Check the " +
		"peer's receive queue (how many receives are posted, how fast they are reposted, an SRQ's limit) " +
		"and min_rnr_timer; if the counter of RNR retries exceeded rises too, requests are now failing.",
	SignalRNRExceeded: "Raised when a requester got an RNR NAK for the same request rnr_retry+1 times and " +
		"gave up: the work request completes with IBV_WC_RNR_RETRY_EXC_ERR and the QP goes to the Error " +
		"state. It is terminal. It usually means the peer stopped posting receives (hung, too slow, or " +
		"its QP is not draining). Check the peer's receive side first, then raise rnr_retry (7 retries " +
		"without end) if the peer is only slow.",
	SignalTimeoutRetry: "Raised when the requester's transport timer (the QP's timeout attribute: " +
		"4.096 us x 2^timeout) ran out with no ACK, so it sent again from the oldest unacknowledged " +
		"packet. It is recoverable: a retry is the protocol working. A steady rise means packets or " +
		"ACKs are lost: congestion with no lossless setup (PFC/ECN) on RoCE, a peer whose QP is gone or " +
		"in Error, a wrong path (address vector, GID, MTU), or a peer host that is down. Check the path " +
		"(ping the peer's GID address), the port error and discard counters on both ends, the peer QP's " +
		"state; a timeout set below the fabric's round trip retries needlessly.",
	SignalRetryExceeded: "Raised when a requester timed out and resent the same request retry_cnt+1 times " +
		"and gave up: the work request completes with IBV_WC_RETRY_EXC_ERR and the QP goes to the Error " +
		"state. It is terminal. It usually means the peer is gone (its QP destroyed or in Error, its " +
		"process dead, its host or link down) or the path loses every packet. Check whether the peer QP " +
		"still exists and is in RTS, then the path and the port counters between them.",
	SignalSequence: "Raised when a packet arrives with a PSN its receiver did not expect: one before it was " +
		"lost or reordered. The responder sends a sequence-error NAK (or a requester infers one from a " +
		"read response), and the requester resends from the missing packet. It is recoverable; a steady " +
		"rate means loss on the path. Check the port error and discard counters along the path, the " +
		"lossless setup (PFC, ECN) on RoCE, and MTU agreement.",
	SignalRemoteAccess: "Raised when a responder refuses an RDMA Read, Write or atomic because the rkey is " +
		"wrong or invalidated, the address range is outside the memory region, or the region lacks the " +
		"remote access flag: the requester's work request completes with IBV_WC_REM_ACCESS_ERR and its " +
		"QP goes to the Error state. It is terminal. Check the rkey and address the peers exchanged, the " +
		"region's access flags (IBV_ACCESS_REMOTE_WRITE/READ/ATOMIC), whether the peer deregistered or " +
		"invalidated the region, and the responder QP's qp_access_flags.",
	SignalRemoteInvalid: "Raised when a responder cannot execute a request: an opcode its QP does not allow " +
		"(qp_access_flags), a message longer than the receive buffer or than max_msg_sz, or a malformed " +
		"request. The requester's work request completes with IBV_WC_REM_INV_REQ_ERR and its QP goes to " +
		"the Error state. It is terminal. Check the responder QP's access flags and the sizes of its " +
		"receive buffers against the messages sent.",
}

// classText is the general text for a counter without a signal.
var classText = map[Class]string{
	ClassTraffic: "It counts work that went through; its rate is throughput. A traffic counter that stands " +
		"still while a QP has work outstanding says the traffic stopped: look at the QP's state, its " +
		"retry counters and the peer.",
	ClassError: "A rise means something failed. Find which QP: bind QPs to per-QP counters (rdma statistic " +
		"qp set link DEV/PORT auto type on), or read the failed completions' status (ibv_wc_status_str) " +
		"in the program.",
	ClassRetry: "A rise means the transport repeated something and is recovering; it is not a failure by " +
		"itself. A steady rate points at loss or a slow peer; check the port error counters and the peer.",
	ClassCongestion: "It counts congestion control at work (ECN marks, congestion notification packets, rate " +
		"reduction): the fabric is busy and the NIC is slowing senders down rather than dropping. A high " +
		"rate with low throughput points at a congested switch port or an incast pattern; check the " +
		"DCQCN/ECN settings on hosts and switches.",
	ClassDrop: "A rise means packets were discarded before any QP saw them, so no completion reports it; " +
		"senders see it only as retries and timeouts. Check buffer and receive-queue sizing, the link, " +
		"and the lossless setup (PFC) on RoCE.",
	ClassOther: "It counts device or driver events rather than traffic or failures; it seldom says " +
		"anything about a stuck QP.",
}

// explain builds the long text of a counter: its own text where the
// table has one, else its signal's or its class's, then its side, width
// and source.
func explain(driver string, in Info) string {
	var b strings.Builder
	b.WriteString(in.Meaning)
	b.WriteString(". ")
	switch {
	case in.Explain != "":
		b.WriteString(in.Explain)
	case in.Signal != SignalNone:
		b.WriteString(signalText[in.Signal])
	default:
		b.WriteString(classText[in.Class])
	}
	if in.Terminal && in.Signal == SignalNone && in.Explain == "" {
		b.WriteString(" A rise is terminal: the work request failed for good and its QP went to the Error state.")
	}
	fmt.Fprintf(&b, " Counted on the %s side", in.Side)
	if driver == "" {
		b.WriteString(" (an IBTA PortCounters attribute, read by the driver's performance agent)")
	}
	b.WriteString(".")
	switch {
	case in.Saturates && in.Bits > 0:
		fmt.Fprintf(&b, " It is %d bits wide and stops at %d rather than wrapping: at the top it means \"at least this many\"; perfquery -R resets it.", in.Bits, uint64(1)<<uint(in.Bits)-1)
	case in.Bits > 0 && in.Bits < 64:
		fmt.Fprintf(&b, " It is %d bits wide and wraps to 0 after %d; rates across a wrap are corrected.", in.Bits, uint64(1)<<uint(in.Bits)-1)
	}
	if in.Source != "" {
		b.WriteString(" Source: " + in.Source + ".")
	}
	return b.String()
}
