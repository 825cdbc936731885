package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/diagnose"
)

// rnrVerdict is the diagnosis's verdict on the fixture's qp 18, sending
// to qp 19 which posted no receive.
func rnrVerdict() Verdicts {
	return Verdicts{Seq: 3, Time: t0, List: []diagnose.Verdict{{
		Dev: "rxe0", LQPN: 18, State: "RTS", PID: 180, Comm: "ibv_rc_pingpong", Cause: diagnose.CauseRNR, Certainty: diagnose.Certain,
		Why:      "peer this host qp 19 has no receive posted",
		Evidence: []string{"its PSNs stood still for 3 readings since 10:00:01 (sq-psn 2098797, rq-psn 14426237) in RTS, while rcvd_rnr_err rose by 390"},
		Fix:      []string{"post a receive on the peer QP (ibv_post_recv on this host's qp 19, or `post recv` in its verbs shell): the next retry goes through"},
		Peer:     &diagnose.PeerQP{Host: "this host", Dev: "rxe0", LQPN: 19, RQPN: 18, State: "RTS", SQPSN: 14426237, RQPSN: 2098796, PID: 181, Comm: "ibv_rc_pingpong"},
		Since:    t0.Add(time.Second),
	}}}
}

// A verdict shows in the header's alerts line (the cause named), in the
// overview's QP box (QPs by cause) and at the top of the QP's detail,
// the peer's PSNs beside the QP's; once the diagnosis clears it, none of
// it stays.
func TestVerdictGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"overview", []string{":", "o", "v", "e", "r", "v", "i", "e", "w", "enter"}},
		{"detail", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
			m.Update(verdictsMsg{rnrVerdict()})
			send(m, tc.keys...)
			if tc.keys == nil {
				selectQP(t, m, "rxe0", 18)
				send(m, "enter")
			}
			out := screen(m)
			checkFits(t, out, 120, 40)
			if want := "stuck: rxe0 qp 18 rnr (peer this host qp 19 has no receive posted)"; !strings.Contains(out, want) {
				t.Errorf("the alerts line does not say %q:\n%s", want, out)
			}
			requireBody(t, out)
			m.Update(verdictsMsg{Verdicts{Seq: 4, Time: t0.Add(time.Second)}})
			if out := screen(m); strings.Contains(out, "stuck:") || strings.Contains(out, "verdict") || strings.Contains(out, "causes") {
				t.Errorf("the verdict stayed after the diagnosis cleared it:\n%s", out)
			}
		})
	}
}

// The counts by cause follow diagnose.Causes's order.
func TestCauseCounts(t *testing.T) {
	c := &common{verdicts: Verdicts{List: []diagnose.Verdict{{Cause: diagnose.CausePeerGone}, {Cause: diagnose.CauseRNR}, {Cause: diagnose.CausePeerGone}}}}
	if got, want := c.causeCounts(), "rnr 1  peer_gone 2"; got != want {
		t.Errorf("causeCounts = %q, want %q", got, want)
	}
	if got := (&common{}).causeCounts(); got != "" {
		t.Errorf("no verdicts: causeCounts = %q, want none", got)
	}
}

// selectQP moves the QP view's selection to dev's QP qpn.
func selectQP(t *testing.T, m *model, dev string, qpn uint32) {
	t.Helper()
	for range m.cur.table.rows {
		send(m, "up")
	}
	for range m.cur.table.rows {
		if r, ok := m.cur.table.Selected(); ok && r.res != nil && r.res.key.Dev == dev && r.res.key.ID == qpn {
			return
		}
		send(m, "down")
	}
	t.Fatalf("no row of %s qp %d in the QP view", dev, qpn)
}
