package diagnose

import (
	"time"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/inspect"
)

// look is why a QP is looked at.
type look int

// The looks.
const (
	// lookStalled: a reliable QP in RTS or SQD whose PSNs stood still
	// while retry or RNR counters rose (its own, or its port's), or whose
	// peer on this host has not accepted what it sent.
	lookStalled look = iota + 1
	// lookFailed: a QP in ERR or SQE.
	lookFailed
	// lookOwnerExited: a QP whose creating process exited.
	lookOwnerExited
)

// rise is how much one counter rose while a QP stood still.
type rise struct {
	Name   string
	Signal counters.Signal
	By     uint64
	// PerQP is set for a counter of the QP's own (rdma statistic qp
	// bind), not its port's.
	PerQP bool
}

// traced are the facts trace's modifies give of a QP (its history's
// Modify entries): where it sends and how long it retries. A zero field
// is unknown.
type traced struct {
	// DGID is ah_attr.dgid as text ("::ffff:10.0.1.2"); DestQPN
	// dest_qp_num (HasDest when a modify set it).
	DGID    string
	DestQPN uint32
	HasDest bool
	// Timeout, RetryCnt and RNRRetry are the ib_qp_attr members, -1
	// when no traced modify set them.
	Timeout, RetryCnt, RNRRetry int
	// ToErr is the modify that moved the QP to ERR (nil: none traced,
	// the kernel moved it on an error, or trace was off).
	ToErr *inspect.Modify
}

// PeerAnswer is what asking the peers gave for one QP.
type PeerAnswer struct {
	// Asked are the exporters asked; Failed says which did not answer
	// and why, one a line ("10.0.1.2:9879: connection refused").
	Asked  []string
	Failed []string
	// QP is the peer QP found, nil when none.
	QP *PeerQP
	// ByNumbers is set when the peer was found by its QP number and
	// remote number only (the destination GID unknown): probably it.
	ByNumbers bool
	// HostKnown is set when the peer's host was named by the QP's
	// destination GID (trace), so a missing QP there is missing.
	HostKnown bool
}

// answered reports whether any exporter answered.
func (a *PeerAnswer) answered() bool { return len(a.Asked) > len(a.Failed) }

// facts are what is known of one QP that needs a look: the input of
// judge.
type facts struct {
	Look  look
	QP    inspect.QP
	Since time.Time
	// Driver is the device's driver as Config.Driver names it.
	Driver string
	// Still is how many readings the PSNs stood still (lookStalled).
	Still int
	// Rises are the retry, RNR and error counters that rose meanwhile:
	// the QP's own or its port's.
	Rises []rise
	// LocalPeer is the peer QP when it is on this host (the Tracker's
	// judgement); nil otherwise.
	LocalPeer *inspect.QP
	// GoneHere is set when Peer.QP is a QP of this host's that the
	// Tracker saw destroyed (goneLocalPeer), not an exporter's answer.
	GoneHere bool
	// Port is the QP's port as the snapshot showed it (nil: not shown).
	Port *inspect.Port
	// Candidates are the other QPs of the port that could be the one
	// retrying (port counters are shared).
	Candidates []uint32
	Traced     traced
	Peer       PeerAnswer
	// Owner is the exited owner (lookOwnerExited).
	Owner inspect.Owner
}

// signal returns the total rise of the counters with signal s.
func (f *facts) signal(s counters.Signal) uint64 {
	var n uint64
	for _, r := range f.Rises {
		if r.Signal == s {
			n += r.By
		}
	}
	return n
}

// portUp reports whether the QP's port is ACTIVE (true when unknown).
func (f *facts) portUp() bool {
	return f.Port == nil || f.Port.State.Up()
}
