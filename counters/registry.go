package counters

import (
	"slices"
	"strings"
)

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
	Bits int
	// Saturates is set for a counter that stops at its largest value
	// instead of wrapping (the IBTA PortCounters' error counters); a
	// saturated counter says "at least this many" and only a reset
	// (perfquery -x -r) makes it count again.
	Saturates bool
	Signal    Signal
	// Explain is the long text: what raises it, what it usually means,
	// what to check next.
	Explain string
	// Source cites where the name and meaning come from (kernel file,
	// vendor documentation).
	Source string
}

// Alarming tells whether a rise of the counter is trouble worth a mark:
// an error or a drop, or anything terminal. Retries, congestion marks and
// traffic are not (a retry is the protocol working).
func (in Info) Alarming() bool {
	return in.Terminal || in.Class == ClassError || in.Class == ClassDrop
}

// WrapBits is the width at which the counter wraps back to 0, for Delta:
// Bits for a counter that wraps, 0 (do not unwrap) for one that
// saturates or whose width is not known.
func (in Info) WrapBits() int {
	if in.Saturates {
		return 0
	}
	return in.Bits
}

// Entry is one counter of one driver, as All lists them. Driver is ""
// for the IBTA PortCounters every InfiniBand driver answers for under
// ports/N/counters/.
type Entry struct {
	Driver string
	Info
}

// Lookup returns what the registry knows of the counter name as driver
// exposes it (driver as DeviceDriver names it: "rxe", "mlx5", "mlx4", "hfi1",
// "bnxt_re", "irdma", "i40iw", "efa", "hns", "erdma", "ionic", "siw"). With
// driver "" (not known) a name is found only where every driver that has it
// means the same. ok is false for a counter the registry does not know.
func Lookup(driver, name string) (Info, bool) {
	return lookup(driver, name)
}

// Own is driver's own entry for name, not the PortCounters' every
// driver shares (driver "": the PortCounters'): its row, or the numbered
// family name belongs to (hfi1's DcRxFlitVl15 of DcRxFlitVl[0-7,15]),
// with Name set to name.
func Own(driver, name string) (Info, bool) {
	indexOnce.Do(index)
	return own(driver, normalName(name))
}

// All lists the registry: by driver ("" first), then name.
func All() []Entry {
	indexOnce.Do(index)
	return slices.Clone(sorted)
}

// Drivers lists the drivers the registry has tables for, sorted ("" for
// the PortCounters is left out).
func Drivers() []string {
	indexOnce.Do(index)
	var out []string
	for d := range byDriver {
		if d != "" {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out
}

// Delta is how much a counter of the given width rose from prev to cur.
// A counter that went down wrapped if it is bits wide (bits 1..63), and
// the rise is what it counted past its top; with bits 0 or 64 (unknown
// width, or a 64-bit counter, which will not wrap in a machine's life) a
// fall is a reset and ok is false.
func Delta(prev, cur uint64, bits int) (delta uint64, ok bool) {
	if cur >= prev {
		return cur - prev, true
	}
	if bits <= 0 || bits >= 64 || prev >= 1<<uint(bits) || cur >= 1<<uint(bits) {
		return 0, false
	}
	return (1 << uint(bits)) - prev + cur, true
}

// RetryCounters names the counters of a driver's device whose rise
// tells a diagnosis of a QP's retries (every counter with a Signal):
// retrying those that count a request being tried again (recoverable:
// RNR NAKs, transport timeouts, sequence NAKs), gaveUp those that count
// a request that failed for good (terminal: retries exceeded, a remote
// access or invalid-request refusal). driver as DeviceDriver names it;
// "" (not known) gives every driver's, leaving out a name the drivers
// disagree on (terminal for one, recoverable for another), since which
// it means is not known. A driver the registry has no table for has
// none. Sorted, each once.
func RetryCounters(driver string) (retrying, gaveUp []string) {
	indexOnce.Do(index)
	terminal := map[string][]bool{}
	for _, e := range sorted {
		if e.Signal != SignalNone && e.Driver != "" && (driver == "" || e.Driver == driver) {
			terminal[e.Name] = append(terminal[e.Name], e.Terminal)
		}
	}
	for name, ts := range terminal {
		switch {
		case !slices.Contains(ts, true):
			retrying = append(retrying, name)
		case !slices.Contains(ts, false):
			gaveUp = append(gaveUp, name)
		}
	}
	slices.Sort(retrying)
	slices.Sort(gaveUp)
	return retrying, gaveUp
}

// normalName trims what sysfs and netlink put around a name.
func normalName(name string) string { return strings.TrimSpace(name) }
