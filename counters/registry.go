package counters

// Class groups counters by what a rise means to someone debugging.
type Class string

// The classes.
const (
	ClassTraffic    Class = "traffic"    // packets, bytes, requests that went through
	ClassError      Class = "error"      // a request or packet failed
	ClassRetry      Class = "retry"      // a retransmission or a NAK that is retried
	ClassCongestion Class = "congestion" // ECN/CNP marks and rate reduction
	ClassDrop       Class = "drop"       // packets discarded without an error to any QP
	ClassOther      Class = "other"      // everything else (setup counts, events)
)

// Side is where in a connection a counter counts.
type Side string

// The sides.
const (
	SideRequester Side = "requester" // the QP that sends requests (send, RDMA write/read, atomic)
	SideResponder Side = "responder" // the QP that receives them and answers
	SidePort      Side = "port"      // the link, whichever QP the packets belong to
	SideDevice    Side = "device"    // the device as a whole
)

// Signal is what a rising counter tells the diagnosis of a stuck or failed
// QP. Most counters give none.
type Signal string

// The signals.
const (
	SignalNone Signal = ""
	// SignalRNR: an RNR NAK (the responder had no receive posted) was
	// received or sent; the requester retries after the RNR timer.
	SignalRNR Signal = "rnr"
	// SignalRNRExceeded: a requester gave up after rnr_retry RNR NAKs.
	SignalRNRExceeded Signal = "rnr_exceeded"
	// SignalTimeoutRetry: the requester retransmitted after its
	// transport (ACK) timer expired with no answer.
	SignalTimeoutRetry Signal = "timeout_retry"
	// SignalRetryExceeded: a requester gave up after retry_cnt timeouts.
	SignalRetryExceeded Signal = "retry_exceeded"
	// SignalSequence: a packet arrived out of sequence (a NAK or an
	// implied NAK), so the requester resent from the lost PSN.
	SignalSequence Signal = "sequence"
	// SignalRemoteAccess: a responder refused an RDMA operation (rkey,
	// range or permission), or a requester was told so.
	SignalRemoteAccess Signal = "remote_access"
	// SignalRemoteInvalid: a responder refused a request it cannot
	// execute (opcode, length).
	SignalRemoteInvalid Signal = "remote_invalid"
)

// Info is what the registry knows of one counter.
type Info struct {
	Name    string
	Meaning string // one line: what it counts
	Class   Class
	Side    Side
	// Terminal is set when a rise means a request failed for good (the
	// QP goes to ERR); a recoverable counter counts something retried.
	Terminal bool
	// Bits is the counter's width where the kernel says (32 wraps at
	// 2^32); 0 when the kernel does not say (read as 64-bit).
	Bits   int
	Signal Signal
	// Explain is the long text: what raises it, what it usually means,
	// what to check next.
	Explain string
	// Source cites where the name and meaning come from (kernel file,
	// vendor documentation).
	Source string
}

// Lookup returns what the registry knows of the counter name as driver
// exposes it (driver as DriverOf names it: "rxe", "mlx5", "mlx4", "hfi1",
// "bnxt_re", "irdma", "i40iw", "efa", "hns", "erdma", "ionic", "siw"). With
// driver "" (not known) a name is found only where every driver that has it
// means the same. ok is false for a counter the registry does not know.
func Lookup(driver, name string) (Info, bool) {
	return lookup(driver, name)
}
