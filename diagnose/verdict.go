package diagnose

import (
	"fmt"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// Cause names why a QP needs a look.
type Cause string

// The causes, from the most specific to the honest remainder.
const (
	// CauseRNR: the receiver has no receive posted; the sender gets RNR
	// NAKs and retries (forever with rnr_retry 7).
	CauseRNR Cause = "rnr"
	// CausePeerGone: the peer QP no longer exists (destroyed, its
	// process exited).
	CausePeerGone Cause = "peer_gone"
	// CausePeerNotReady: the peer QP is in RESET or INIT (it drops what
	// arrives before RTR) or in ERR/SQE.
	CausePeerNotReady Cause = "peer_not_ready"
	// CauseWrongDestination: the destination QP number names no QP on
	// the peer host, or the peer QP is connected elsewhere.
	CauseWrongDestination Cause = "wrong_destination"
	// CauseRemoteAccess: the peer refused an RDMA operation (rkey, range
	// or permission); both ends go to ERR.
	CauseRemoteAccess Cause = "remote_access"
	// CauseLinkDown: the QP's port is not ACTIVE while the QP waits.
	CauseLinkDown Cause = "link_down"
	// CauseFlushed: the QP is in ERR (an earlier error or an explicit
	// move), so every posted request is flushed.
	CauseFlushed Cause = "flushed"
	// CauseOwnerExited: the QP's creating process exited; a descriptor
	// another process inherited holds it alive.
	CauseOwnerExited Cause = "owner_exited"
	// CauseNoResponse: retrying with no answer and none of the above
	// established.
	CauseNoResponse Cause = "no_response"
)

// Causes lists every cause, in the order the docs and the exporter's
// gauge give them (the gauge's label values are exactly these).
var Causes = []Cause{CauseRNR, CausePeerGone, CausePeerNotReady, CauseWrongDestination, CauseRemoteAccess,
	CauseLinkDown, CauseFlushed, CauseOwnerExited, CauseNoResponse}

// Certainty says how sure a verdict is.
type Certainty string

// The certainties.
const (
	// Certain: the facts establish the cause (the peer's own state and
	// PSNs, the QP's own counters, a traced modify).
	Certain Certainty = "certain"
	// Probable: the cause is the likeliest reading of shared facts (a
	// port's counters with more than one QP that could be retrying, a
	// peer found by QP numbers only, a peer that did not answer).
	Probable Certainty = "probable"
)

// PeerQP is the QP at the other end, as its host's exporter told.
type PeerQP struct {
	// Host is the peer's exporter as asked (its host and port).
	Host  string `json:"host"`
	Dev   string `json:"dev,omitempty"`
	LQPN  uint32 `json:"lqpn"`
	RQPN  uint32 `json:"rqpn"`
	State string `json:"state"`
	SQPSN uint32 `json:"sq_psn"`
	RQPSN uint32 `json:"rq_psn"`
	PID   uint32 `json:"pid"`
	Comm  string `json:"comm"`
	// Gone is set for a QP the peer's exporter saw destroyed (GoneAt
	// when); its state is the last one seen.
	Gone   bool      `json:"gone,omitempty"`
	GoneAt time.Time `json:"gone_at,omitzero"`
}

// Verdict is why one QP needs a look, and what to do.
type Verdict struct {
	Dev       string    `json:"dev"`
	LQPN      uint32    `json:"lqpn"`
	State     string    `json:"state"`
	PID       uint32    `json:"pid"`
	Comm      string    `json:"comm"`
	Cause     Cause     `json:"cause"`
	Certainty Certainty `json:"certainty"`
	// Why is the cause in a few words, for a one-line summary ("peer
	// hostb qp 17 has no receive posted").
	Why string `json:"why"`
	// Evidence are the facts, one a line, strongest first.
	Evidence []string `json:"evidence"`
	// Fix says what to do next, one step a line.
	Fix []string `json:"fix"`
	// Peer is the other end, nil when unknown.
	Peer *PeerQP `json:"peer"`
	// Since is when the QP last made progress (stuck) or entered its
	// state (failed).
	Since time.Time `json:"since"`
	// Candidates are the other QPs of the port that could be the one
	// retrying, when the port's counters are the evidence and more than
	// one QP could explain them.
	Candidates []uint32 `json:"candidates,omitempty"`
}

// Key is the verdict's QP as the Tracker keys it.
// Failed reports whether the verdict's QP is in a state a QP falls
// into on an error (rdma.QPState.Failed: ERR, SQE), rather than one that
// waits.
func (v *Verdict) Failed() bool { return failedState(v.State) }

func (v *Verdict) Key() inspect.Key { return inspect.Key{Kind: rdma.KindQP, Dev: v.Dev, ID: v.LQPN} }

// Summary is the verdict in one line: "rxe0 qp 17 rnr (peer 10.0.1.2:9879
// qp 17 has no receive posted)", with "probably" for a probable one.
func (v *Verdict) Summary() string {
	s := fmt.Sprintf("%s qp %d %s", v.Dev, v.LQPN, v.Cause)
	why := v.Why
	if v.Certainty == Probable {
		why = "probably: " + why
	}
	if why != "" {
		s += " (" + why + ")"
	}
	return s
}
