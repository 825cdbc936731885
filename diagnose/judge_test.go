package diagnose

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

var t0 = time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)

// rcQP is a connected RC QP as RDMA netlink shows one.
func rcQP(dev string, lqpn, rqpn uint32, st rdma.QPState, sq, rq uint32) inspect.QP {
	q := inspect.QP{LQPN: lqpn, RQPN: rqpn, State: st, Type: rdma.QPTypeRC, SQPSN: sq, RQPSN: rq, Port: 1}
	q.DevName, q.PID, q.Comm = dev, 812, "ibv_rc_pingpong"
	for _, a := range []inspect.Attr{inspect.AttrResRQPN, inspect.AttrResRQPSN, inspect.AttrResSQPSN} {
		q.Attrs.Add(a)
	}
	return q
}

func peer(st string, lqpn, rqpn, sq, rq uint32) *PeerQP {
	return &PeerQP{Host: "10.0.1.2:9879", Dev: "rxe0", LQPN: lqpn, RQPN: rqpn, State: st, SQPSN: sq, RQPSN: rq, PID: 900, Comm: "verbscope"}
}

var (
	rnrRise     = []rise{{Name: "rcvd_rnr_err", Signal: counters.SignalRNR, By: 390}}
	timeoutRise = []rise{{Name: "completer_retry_err", Signal: counters.SignalTimeoutRetry, By: 48}}
	asked       = PeerAnswer{Asked: []string{"10.0.1.2:9879"}}
	rcTraced    = traced{Timeout: 14, RetryCnt: 7, RNRRetry: 7}
	unknown     = traced{Timeout: -1, RetryCnt: -1, RNRRetry: -1}
)

func withPeer(a PeerAnswer, p *PeerQP) PeerAnswer { a.QP = p; return a }

func TestJudge(t *testing.T) {
	stalled := func(rises []rise, pa PeerAnswer, tr traced) facts {
		return facts{Look: lookStalled, QP: rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500), Since: t0, Driver: "rxe", Still: 3,
			Rises: rises, Peer: pa, Traced: tr}
	}
	down := stalled(timeoutRise, PeerAnswer{}, unknown)
	down.Port = &inspect.Port{DevName: "rxe0", Port: 1, State: rdma.PortStateDown, Netdev: "eth1"}
	gone := peer("RTS", 18, 17, 500, 100)
	gone.Gone, gone.GoneAt = true, t0.Add(-time.Minute)
	byNumbers := withPeer(asked, peer("RTS", 18, 17, 500, 100))
	byNumbers.ByNumbers = true
	failedTraced := facts{Look: lookFailed, QP: rcQP("rxe0", 17, 18, rdma.QPStateErr, 101, 500), Since: t0, Driver: "rxe",
		Traced: traced{Timeout: -1, RetryCnt: -1, RNRRetry: -1, ToErr: &inspect.Modify{PID: 77, Comm: "verbscope", Time: t0, From: rdma.QPStateRTS, To: rdma.QPStateErr}}}
	failedDown := facts{Look: lookFailed, QP: rcQP("rxe0", 17, 18, rdma.QPStateErr, 101, 500), Since: t0, Traced: unknown, Port: down.Port}
	dead := facts{Look: lookOwnerExited, QP: rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500), Since: t0, Owner: inspect.OwnerExited}
	candidates := stalled(rnrRise, PeerAnswer{}, unknown)
	candidates.Candidates = []uint32{19, 20}
	for _, tc := range []struct {
		name      string
		f         facts
		cause     Cause
		certainty Certainty
		why       string
		// text must appear in the evidence or fix lines.
		text string
	}{
		{"rnr, the peer read", stalled(rnrRise, withPeer(asked, peer("RTS", 18, 17, 500, 100)), rcTraced), CauseRNR, Certain,
			"peer 10.0.1.2:9879 qp 18 has no receive posted", "rnr_retry 7 means retry forever"},
		{"rnr, peer found by numbers", stalled(rnrRise, byNumbers, rcTraced), CauseRNR, Probable,
			"peer 10.0.1.2:9879 qp 18 has no receive posted", "found by QP numbers only"},
		{"peer destroyed", stalled(timeoutRise, withPeer(asked, gone), rcTraced), CausePeerGone, Certain,
			"peer 10.0.1.2:9879 qp 18 was destroyed", "rxe retries forever at 7 (rxe_comp.c)"},
		{"peer in INIT", stalled(timeoutRise, withPeer(asked, peer("INIT", 18, 0, 0, 0)), rcTraced), CausePeerNotReady, Certain,
			"peer 10.0.1.2:9879 qp 18 is in INIT", "timeout 14 = 4.096 µs × 2^14 ≈ 67 ms a try"},
		{"peer in ERR", stalled(timeoutRise, withPeer(asked, peer("ERR", 18, 17, 500, 100)), rcTraced), CausePeerNotReady, Certain,
			"peer 10.0.1.2:9879 qp 18 is in ERR", "answers nothing"},
		{"peer connected elsewhere", stalled(timeoutRise, withPeer(asked, peer("RTS", 18, 44, 500, 100)), rcTraced), CauseWrongDestination, Probable,
			"peer 10.0.1.2:9879 qp 18 is connected to qp 44, not to 17", "do not point at each other"},
		{"no such QP on the peer", stalled(timeoutRise, PeerAnswer{Asked: []string{"10.0.1.2:9879"}, HostKnown: true}, rcTraced), CauseWrongDestination, Certain,
			"no qp 18 on 10.0.1.2:9879", "live or recently destroyed"},
		{"link down", down, CauseLinkDown, Certain, "rxe0 port 1 is DOWN", "ip link set eth1 up"},
		{"no peer to ask, RNR NAKs", stalled(rnrRise, PeerAnswer{}, unknown), CauseRNR, Probable,
			"RNR NAKs rose: the peer has no receive posted", "no peer exporter to ask"},
		{"peer's exporter down, timeouts", stalled(timeoutRise, PeerAnswer{Asked: []string{"10.0.1.2:9879"}, Failed: []string{"10.0.1.2:9879: connection refused"}}, unknown),
			CauseNoResponse, Probable, "retransmissions get no answer", "the peer's exporter did not answer: 10.0.1.2:9879: connection refused"},
		{"candidates", candidates, CauseRNR, Probable, "RNR NAKs rose: the peer has no receive posted", "2 other QPs that could be the one retrying (qp 19, 20)"},
		{"failed, moved by a modify", failedTraced, CauseFlushed, Certain, "moved to ERR by verbscope[77]", "IBV_WC_WR_FLUSH_ERR"},
		{"failed with the peer in ERR", facts{Look: lookFailed, QP: rcQP("rxe0", 17, 18, rdma.QPStateErr, 101, 500), Since: t0, Traced: unknown,
			Peer: withPeer(asked, peer("ERR", 18, 17, 500, 101))}, CauseRemoteAccess, Probable, "peer 10.0.1.2:9879 qp 18 is in ERR too: the responder refused a request", "rkey"},
		{"failed, nothing known", facts{Look: lookFailed, QP: rcQP("rxe0", 17, 18, rdma.QPStateErr, 101, 500), Since: t0, Traced: unknown}, CauseFlushed, Certain,
			"in ERR after an earlier error or a move nobody traced", "first completion in error"},
		{"failed with the port down", failedDown, CauseLinkDown, Certain, "rxe0 port 1 is DOWN", "ip link set eth1 up"},
		{"owner exited", dead, CauseOwnerExited, Certain, "its process ibv_rc_pingpong[812] exited; an inherited descriptor keeps it", "uverbs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := judge(tc.f)
			if !ok {
				t.Fatal("cleared, want a verdict")
			}
			if v.Cause != tc.cause || v.Certainty != tc.certainty || v.Why != tc.why {
				t.Errorf("got %s %s %q, want %s %s %q", v.Cause, v.Certainty, v.Why, tc.cause, tc.certainty, tc.why)
			}
			all := strings.Join(append(append([]string{}, v.Evidence...), v.Fix...), "\n")
			if !strings.Contains(all, tc.text) {
				t.Errorf("evidence and fix lack %q:\n%s", tc.text, all)
			}
			if len(v.Fix) == 0 || len(v.Evidence) == 0 {
				t.Errorf("a verdict without evidence or fix: %+v", v)
			}
		})
	}
}

// A QP whose peer accepted every PSN it sent is idle, not stuck: the
// port's counters count another QP.
func TestJudgeClearsIdle(t *testing.T) {
	f := facts{Look: lookStalled, QP: rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500), Since: t0, Still: 3, Rises: timeoutRise,
		Peer: withPeer(asked, peer("RTS", 18, 17, 500, 101)), Traced: unknown}
	if v, ok := judge(f); ok {
		t.Fatalf("got %s, want no verdict", v.Summary())
	}
}

func TestSummary(t *testing.T) {
	v := Verdict{Dev: "rxe0", LQPN: 17, Cause: CauseRNR, Certainty: Certain, Why: "peer hostb qp 17 has no receive posted"}
	if got, want := v.Summary(), "rxe0 qp 17 rnr (peer hostb qp 17 has no receive posted)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	v.Certainty = Probable
	if got, want := v.Summary(), "rxe0 qp 17 rnr (probably: peer hostb qp 17 has no receive posted)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestRetryArithmetic(t *testing.T) {
	for _, tc := range []struct {
		tr     traced
		driver string
		want   string
	}{
		{traced{Timeout: 14, RetryCnt: 7}, "rxe", "retry_cnt 7: rxe retries forever at 7 (rxe_comp.c)"},
		{traced{Timeout: 14, RetryCnt: 7}, "mlx5", "retry_cnt 7: 8 tries, about 537 ms"},
		{traced{Timeout: 18, RetryCnt: 3}, "rxe", "timeout 18 = 4.096 µs × 2^18 ≈ 1.1 s a try"},
		{traced{Timeout: 0, RetryCnt: 3}, "rxe", "waits for an ACK forever"},
		{traced{Timeout: -1, RetryCnt: -1}, "rxe", "unknown without trace"},
	} {
		got := strings.Join(timeoutLines(tc.tr, tc.driver), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%+v on %s: got %q, want %q in it", tc.tr, tc.driver, got, tc.want)
		}
	}
}
