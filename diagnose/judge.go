package diagnose

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// judge gives the verdict on one QP from its facts. ok is false when the
// facts clear it: a stalled QP whose peer accepted everything it sent is
// idle, not stuck (another QP of the port is the one retrying).
func judge(f facts) (v Verdict, ok bool) {
	q := &f.QP
	v = Verdict{Dev: q.DevName, LQPN: q.LQPN, State: q.State.IPRoute2(), PID: q.PID, Comm: q.Comm,
		Since: f.Since, Peer: f.Peer.QP, Certainty: Certain, Candidates: f.Candidates}
	if v.Peer == nil && f.LocalPeer != nil {
		p := f.LocalPeer
		v.Peer = &PeerQP{Host: "this host", Dev: p.DevName, LQPN: p.LQPN, RQPN: p.RQPN, State: p.State.IPRoute2(),
			SQPSN: p.SQPSN, RQPSN: p.RQPSN, PID: p.PID, Comm: p.Comm}
	}
	switch f.Look {
	case lookOwnerExited:
		judgeOwner(&v, &f)
	case lookFailed:
		judgeFailed(&v, &f)
	default:
		if !judgeStalled(&v, &f) {
			return Verdict{}, false
		}
	}
	v.Evidence = append(v.Evidence, peerLines(&f)...)
	return v, true
}

// ownerText is " (comm[pid])" of a peer QP, or nothing when unknown (a
// QP of this host seen gone in an earlier reading).
func ownerText(p *PeerQP) string {
	if p.Comm == "" && p.PID == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s[%d])", p.Comm, p.PID)
}

// peerName is how a verdict names the peer QP: "peer 10.0.1.2:9879 qp 17".
func peerName(p *PeerQP) string { return fmt.Sprintf("peer %s qp %d", p.Host, p.LQPN) }

func judgeOwner(v *Verdict, f *facts) {
	v.Cause = CauseOwnerExited
	v.Why = fmt.Sprintf("its process %s[%d] exited; an inherited descriptor keeps it", f.QP.Comm, f.QP.PID)
	v.Evidence = append(v.Evidence, fmt.Sprintf("the process that created it (pid %d, %s) has exited (%s), yet the QP lives: "+
		"another process holds the verbs descriptor it inherited (fork, or a descriptor passed on)", f.QP.PID, f.QP.Comm, ownerWord(f)))
	v.Fix = []string{"find the process holding /dev/infiniband/uverbs* (ls -l /proc/*/fd | grep uverbs) and end it, or close the descriptor before fork (ibv_fork_init, O_CLOEXEC)"}
}

func ownerWord(f *facts) string {
	switch f.Owner {
	case inspect.OwnerZombie:
		return "a zombie, not yet reaped"
	case inspect.OwnerGone:
		return "its pid is gone from /proc"
	}
	return "reaped: the kernel lists no pid"
}

func judgeFailed(v *Verdict, f *facts) {
	q := &f.QP
	p := v.Peer
	switch {
	case !f.portUp():
		v.Cause = CauseLinkDown
		v.Why = fmt.Sprintf("%s port %d is %s", q.DevName, q.Port, f.Port.State)
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s port %d is %s (%s): a request it could not send failed, and the QP went to ERR", q.DevName, q.Port, f.Port.State, f.Port.PhysState))
		v.Fix = append(v.Fix, fmt.Sprintf("bring the link up (ip link set %s up; rdma link show) before reconnecting", netdevOr(f)))
	case f.Traced.ToErr != nil:
		m := f.Traced.ToErr
		v.Cause = CauseFlushed
		v.Why = fmt.Sprintf("moved to ERR by %s[%d]", m.Comm, m.PID)
		v.Evidence = append(v.Evidence, fmt.Sprintf("a modify by %s[%d] at %s moved it from %s to ERR (trace)", m.Comm, m.PID, m.Time.Format("15:04:05.000"), m.From))
	case f.signal(counters.SignalRemoteAccess) > 0:
		v.Cause = CauseRemoteAccess
		v.Why = "the peer refused an RDMA operation (rkey, range or permission)"
		v.Evidence = append(v.Evidence, riseLine(f, counters.SignalRemoteAccess))
	case p != nil && !p.Gone && rdma.QPState(stateOf(p.State)).Failed():
		v.Cause, v.Certainty = CauseRemoteAccess, Probable
		v.Why = fmt.Sprintf("%s is in %s too: the responder refused a request", peerName(p), p.State)
		v.Evidence = append(v.Evidence, "both ends are in ERR and no traced modify moved this one there: the kernel did, on an error; "+
			"a responder that refuses an RDMA operation (rkey, range, permission) moves both ends so (with a NAK for a remote access error)")
	case f.signal(counters.SignalRNRExceeded) > 0:
		v.Cause = CauseRNR
		v.Why = "it gave up after rnr_retry RNR NAKs: the peer had no receive posted"
		v.Evidence = append(v.Evidence, riseLine(f, counters.SignalRNRExceeded))
	case f.signal(counters.SignalRetryExceeded) > 0:
		v.Cause = CauseNoResponse
		v.Why = "it gave up after retry_cnt transport timeouts"
		v.Evidence = append(v.Evidence, riseLine(f, counters.SignalRetryExceeded))
	default:
		v.Cause = CauseFlushed
		v.Why = "in " + q.State.IPRoute2() + " after an earlier error or a move nobody traced"
		v.Evidence = append(v.Evidence, "in "+q.State.IPRoute2()+"; no traced modify moved it there (trace off, or the kernel moved it on a completion error)")
	}
	v.Evidence = append(v.Evidence, "since "+f.Since.Format("15:04:05")+" every request posted to it completes with IBV_WC_WR_FLUSH_ERR")
	v.Fix = append(v.Fix, "read the first completion in error of its CQ: its status names the failure (ibv_wc_status_str); the flushed ones after it only follow",
		"to use the QP again: modify it to RESET, then INIT, RTR and RTS (both ends), or destroy it and connect a new one")
	if v.Cause == CauseRemoteAccess {
		v.Fix = append([]string{"check the remote address, length and rkey the requester used against the peer's MR (verbscope res mr on the peer), and that the MR grants the access (remote_write, remote_read, remote_atomic)"}, v.Fix...)
	}
}

// stateOf reads a state as the exporter prints it (rdma's words).
func stateOf(s string) int {
	for _, st := range rdma.QPStates {
		if st.IPRoute2() == s {
			return int(st)
		}
	}
	return -1
}

// judgeStalled judges a reliable QP whose PSNs stand still with work to
// do; false when the peer's facts clear it.
func judgeStalled(v *Verdict, f *facts) bool {
	q := &f.QP
	p := v.Peer
	still := fmt.Sprintf("its PSNs stood still for %d readings since %s (sq-psn %d, rq-psn %d) in %s",
		f.Still, f.Since.Format("15:04:05"), q.SQPSN, q.RQPSN, q.State.IPRoute2())
	if len(f.Rises) > 0 {
		still += ", while " + risesText(f.Rises)
	}
	v.Evidence = append(v.Evidence, still)
	if len(f.Candidates) > 0 {
		v.Certainty = Probable
		v.Evidence = append(v.Evidence, fmt.Sprintf("the port's counters are shared: %s port %d has %d other QPs that could be the one retrying (qp %s)",
			q.DevName, q.Port, len(f.Candidates), joinNums(f.Candidates)))
	}
	rnr, timeouts := f.signal(counters.SignalRNR), f.signal(counters.SignalTimeoutRetry)
	timeoutFix := timeoutLines(f.Traced, f.Driver)
	switch {
	case !f.portUp():
		v.Cause = CauseLinkDown
		v.Why = fmt.Sprintf("%s port %d is %s", q.DevName, q.Port, f.Port.State)
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s port %d is %s (%s): nothing leaves or arrives", q.DevName, q.Port, f.Port.State, f.Port.PhysState))
		v.Fix = append([]string{fmt.Sprintf("bring the link up (ip link set %s up; rdma link show), then the retries go through if the QP has not given up", netdevOr(f))}, timeoutFix...)
	case p != nil && p.Gone:
		v.Cause = CausePeerGone
		v.Why = fmt.Sprintf("%s was destroyed", peerName(p))
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s%s was destroyed at %s: nothing answers the retransmissions", peerName(p), ownerText(p), p.GoneAt.Format("15:04:05")))
		v.Fix = append([]string{"the other end went away: restart the peer program, then destroy this QP and connect a new one (a QP cannot be pointed at a new peer while in RTS)"}, timeoutFix...)
	case p != nil && (p.State == "RESET" || p.State == "INIT"):
		v.Cause = CausePeerNotReady
		v.Why = fmt.Sprintf("%s is in %s", peerName(p), p.State)
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s is in %s: a QP drops every packet before RTR, so nothing is acknowledged", peerName(p), p.State))
		v.Fix = append([]string{fmt.Sprintf("move the peer QP to RTR (and RTS) with this QP's number %d as its dest_qp_num: the retries then go through", q.LQPN)}, timeoutFix...)
	case p != nil && failedState(p.State):
		v.Cause = CausePeerNotReady
		v.Why = fmt.Sprintf("%s is in %s", peerName(p), p.State)
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s is in %s: it answers nothing this QP sends", peerName(p), p.State))
		v.Fix = append([]string{"the peer failed or was moved to ERR: find why there (verbscope diagnose on the peer), then reconnect both ends"}, timeoutFix...)
	case p != nil && p.RQPN != q.LQPN:
		v.Cause, v.Certainty = CauseWrongDestination, Probable
		v.Why = fmt.Sprintf("%s is connected to qp %d, not to %d", peerName(p), p.RQPN, q.LQPN)
		v.Evidence = append(v.Evidence, fmt.Sprintf("%s (%s) has remote qp %d: the two QPs do not point at each other", peerName(p), p.State, p.RQPN))
		v.Fix = append([]string{"exchange the QP numbers again: each end's dest_qp_num must be the other's own number"}, timeoutFix...)
	case p != nil && !psnAfter(q.SQPSN, p.RQPSN):
		// The peer expects exactly the next PSN this QP would send:
		// everything was accepted, so this QP is idle and not the one
		// the port's counters count.
		return false
	case p != nil:
		unacked := (q.SQPSN - p.RQPSN) & psnMask
		behind := fmt.Sprintf("%s (%s) accepted up to rq-psn %d, this QP sent up to sq-psn %d: %d PSNs unacknowledged", peerName(p), p.State, p.RQPSN, q.SQPSN, unacked)
		if rnr > 0 || timeouts == 0 {
			v.Cause = CauseRNR
			v.Why = fmt.Sprintf("%s has no receive posted", peerName(p))
			v.Evidence = append(v.Evidence, behind)
			v.Fix = append([]string{fmt.Sprintf("post a receive on the peer QP (ibv_post_recv on %s's qp %d, or `post recv` in its verbs shell): the next retry goes through", p.Host, p.LQPN)}, rnrLines(f.Traced)...)
		} else {
			v.Cause = CauseNoResponse
			v.Why = fmt.Sprintf("%s is in %s but does not acknowledge", peerName(p), p.State)
			v.Evidence = append(v.Evidence, behind, "the peer is connected back and ready, yet this QP's retransmissions get no answer: packets are lost on the way (check the route, the MTU, the GID both ends use)")
			v.Fix = timeoutFix
		}
		if f.Peer.ByNumbers {
			v.Certainty = Probable
		}
	default:
		judgeWithoutPeer(v, f, rnr, timeouts)
	}
	if f.Peer.ByNumbers && p != nil {
		v.Certainty = Probable
	}
	return true
}

// judgeWithoutPeer judges a stalled QP whose peer nobody could show:
// its own counters, and whether the peer's host answered.
func judgeWithoutPeer(v *Verdict, f *facts, rnr, timeouts uint64) {
	q := &f.QP
	timeoutFix := timeoutLines(f.Traced, f.Driver)
	switch {
	case f.Peer.answered() && f.Peer.HostKnown:
		// Only the host the destination GID names can say a QP is not
		// there: searched by numbers, the peer may be on a host not
		// asked.
		v.Cause = CauseWrongDestination
		v.Why = fmt.Sprintf("no qp %d on %s", q.RQPN, strings.Join(answeredHosts(f), ", "))
		v.Evidence = append(v.Evidence, fmt.Sprintf("its destination qp %d is no QP the peer's exporter lists, live or recently destroyed", q.RQPN))
		v.Fix = append([]string{"check the destination QP number and GID this QP was given (the peers exchange them: a stale or mistyped number names nothing)"}, timeoutFix...)
		return
	case rnr > 0:
		v.Cause, v.Certainty = CauseRNR, Probable
		v.Why = "RNR NAKs rose: the peer has no receive posted"
		v.Fix = append([]string{"post receives on the peer QP before this side sends (or an SRQ that never runs dry)"}, rnrLines(f.Traced)...)
	default:
		v.Cause, v.Certainty = CauseNoResponse, Probable
		v.Why = "retransmissions get no answer"
		v.Fix = append([]string{"check that the peer program and its QP still exist, that its port is ACTIVE, and the path (ping the peer's address, the GID and MTU)"}, timeoutFix...)
	}
	if f.Peer.answered() {
		v.Evidence = append(v.Evidence, fmt.Sprintf("no QP numbered %d with remote qp %d on %s (the peer may be on a host not asked)", q.RQPN, q.LQPN, strings.Join(answeredHosts(f), ", ")))
	}
	if timeouts > 0 && rnr == 0 {
		v.Evidence = append(v.Evidence, "transport timeouts only, no RNR NAKs: nothing at the other end answers (gone, not ready, or unreachable)")
	}
}

// peerLines say whom the diagnosis asked and what failed.
func peerLines(f *facts) []string {
	a := &f.Peer
	switch {
	case f.LocalPeer != nil:
		return nil
	case len(a.Asked) == 0 && f.Look == lookStalled:
		return []string{"no peer exporter to ask (the destination GID is unknown without trace, and no --peers or --prometheus was given): judged on this host's facts only"}
	}
	var out []string
	switch {
	case a.QP != nil && f.GoneHere:
		out = append(out, fmt.Sprintf("the peer was found by number on this host: %s qp %d, named as this QP's remote, was destroyed (the Tracker saw it go); a QP of another host numbered alike would be the peer instead: probably it", a.QP.Dev, a.QP.LQPN))
	case a.QP != nil && a.ByNumbers && a.QP.Gone:
		out = append(out, "the peer was found by its number among the QPs an exporter saw destroyed lately, without trace's destination GID: probably it")
	case a.QP != nil && a.ByNumbers:
		out = append(out, "the peer was found by QP numbers only (its lqpn is this QP's rqpn and its rqpn this QP's lqpn), without trace's destination GID: probably it")
	}
	for _, e := range a.Failed {
		out = append(out, "the peer's exporter did not answer: "+e)
	}
	return out
}

func answeredHosts(f *facts) []string {
	var out []string
	for _, h := range f.Peer.Asked {
		if !slices.ContainsFunc(f.Peer.Failed, func(e string) bool { return strings.HasPrefix(e, h+":") || strings.HasPrefix(e, h+" ") }) {
			out = append(out, h)
		}
	}
	return out
}

func riseLine(f *facts, s counters.Signal) string {
	var rs []rise
	for _, r := range f.Rises {
		if r.Signal == s {
			rs = append(rs, r)
		}
	}
	return risesText(rs) + " meanwhile"
}

// risesText: "rcvd_rnr_err +130 (RNR NAKs received, port counter) rose".
func risesText(rs []rise) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		where := "the port's"
		if r.PerQP {
			where = "its own"
		}
		parts[i] = fmt.Sprintf("%s +%d (%s, %s)", r.Name, r.By, signalWords[r.Signal], where)
	}
	return strings.Join(parts, ", ") + " rose"
}

var signalWords = map[counters.Signal]string{
	counters.SignalRNR:           "RNR NAKs",
	counters.SignalRNRExceeded:   "gave up after RNR NAKs",
	counters.SignalTimeoutRetry:  "transport timeouts",
	counters.SignalRetryExceeded: "gave up after timeouts",
	counters.SignalSequence:      "out-of-sequence NAKs",
	counters.SignalRemoteAccess:  "remote access errors",
	counters.SignalRemoteInvalid: "remote invalid requests",
}

func joinNums(ns []uint32) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// failedState reports whether a peer's state, as its exporter names it,
// is one a QP falls into on an error (rdma.QPState.Failed).
func failedState(name string) bool {
	st, ok := rdma.ParseQPState(name)
	return ok && st.Failed()
}

func netdevOr(f *facts) string {
	if f.Port != nil && f.Port.Netdev != "" {
		return f.Port.Netdev
	}
	return "NETDEV"
}

// psnMask keeps a PSN's 24 bits (IBTA: PSNs are 24-bit and wrap).
const psnMask = 1<<24 - 1

// psnAfter reports whether PSN a comes after b within half the PSN space.
func psnAfter(a, b uint32) bool {
	d := (a - b) & psnMask
	return d != 0 && d < 1<<23
}
