package shell

import (
	"context"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

func init() {
	register(&command{
		name: "why", usage: "why QP [readings=N]",
		summary: "say why a QP of the session is stuck or failed: the cause, the evidence, the fix",
		help: `Watches the QP as the dashboard does (RDMA netlink: its state and
PSNs, its port's retry and RNR counters, its peer when it is a QP on
this host) for a few readings a second apart, then gives the
diagnosis's verdict (verbscope diagnose): a stuck QP's PSNs stand still
while its port's retry or RNR counters rise, so one reading cannot tell.
A QP with nothing wrong is said to be so, with what was checked.

examples:
  open; pd; cq; qp; why qp1 readings=2`,
		pos: []argKind{objArg(rdma.KindQP)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{{name: "readings", help: fmt.Sprintf("how many readings, a second apart; default %d", diagnose.DefaultReadings),
				values: enumValues("5", "", "10", "")}}
		},
		run: runWhy,
	})
}

// whyMaxReadings bounds readings=: a minute of watching is plenty.
const whyMaxReadings = 60

func runWhy(ctx context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	n, err := a.uint("readings", diagnose.DefaultReadings, whyMaxReadings)
	if err != nil {
		return Result{}, err
	}
	if n == 0 {
		return Result{}, &Error{What: "readings=0 reads nothing", Fix: fmt.Sprintf("give 1 or more (default %d)", diagnose.DefaultReadings)}
	}
	if err := a.unused([]string{"readings"}); err != nil {
		return Result{}, err
	}
	if e.closed() {
		return Result{}, &Error{What: e.name + " is destroyed", Fix: "`ls` lists the session's objects"}
	}
	k := inspect.Key{Kind: rdma.KindQP, Dev: e.device(), ID: e.qp.Num()}
	name := fmt.Sprintf("%s (%s qp %d)", e.name, k.Dev, k.ID)
	watched := fmt.Sprintf("%s for %d reading(s), %s apart", name, n, diagnose.DefaultInterval)
	// The readings wait on the clock and netlink only: the lock is let
	// go, so the pane's completion and state answer meanwhile.
	var vs []diagnose.Verdict
	s.waitUnlocked(e.name, "watching "+watched+"…", func() {
		vs, err = diagnose.Run(ctx, diagnose.RunOptions{Readings: int(n), Only: &k})
	})
	if err != nil {
		return Result{}, &Error{What: "why " + e.name + ": " + strings.TrimPrefix(err.Error(), "diagnose: "),
			Fix: "the diagnosis reads RDMA netlink, as `verbscope res` does", Err: err}
	}
	watched = "watched " + watched
	if len(vs) == 0 {
		return Result{Text: watched + ": nothing is wrong with it.\n" +
			"  checked: its state (not ERR or SQE), whether its PSNs stood still while its port's retry or RNR counters rose " +
			"(a stuck QP), whether its process is alive; a peer on this host, if any, was read as well",
			Data: map[string]any{"qp": e.name, "dev": k.Dev, "lqpn": k.ID, "readings": n, "cause": "none", "verdict": nil}}, nil
	}
	v := vs[0]
	return Result{Text: watched + ":\n" + strings.Join(v.Lines(), "\n"),
		Data: map[string]any{"qp": e.name, "dev": k.Dev, "lqpn": k.ID, "readings": n, "cause": string(v.Cause), "verdict": v}}, nil
}
