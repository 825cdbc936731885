package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/verbscope/verbscope/diagnose"
)

func init() { register("diagnose", diagnoseCmd) }

func diagnoseCmd() *command {
	return &command{
		Name:    "diagnose",
		Summary: "why is this QP stuck? a verdict for every stuck or failed QP: the cause, the evidence, the fix, and the peer's side",
		Usage:   "[DEV/QPN] [-j] [--readings N] [--interval D] [--peers URL,...] [--prometheus URL] [--peer-auth FILE] [--peer-ca FILE]",
		Help: `Takes a few readings of every QP and the ports' counters (RDMA netlink)
and lists each QP that needs a look with its verdict: a reliable QP in RTS
or SQD whose PSNs stand still while retry or RNR counters rise (stuck), a
QP in ERR or SQE (failed), a QP whose process exited. Each verdict names a
cause, how sure it is (certain or probable), the evidence and the fix:

  rnr                the receiver has no receive posted (RNR NAKs)
  peer_gone          the peer QP was destroyed (its process exited)
  peer_not_ready     the peer QP is in RESET or INIT, or in ERR/SQE
  wrong_destination  the destination QP number names no QP on the peer host
  remote_access      the peer refused an RDMA operation (rkey, range, permission)
  link_down          the QP's port is not ACTIVE
  flushed            the QP is in ERR, so every request posted is flushed
  owner_exited       the QP's process exited; an inherited descriptor holds it
  no_response        retrying with no answer, none of the above established

The other end is read from its host's exporter (verbscope export's
/api/v1/qps, which serves PSNs and remote QP numbers to clients that
authenticate, or to all with --api.sensitive): the host the QP's
destination GID names when trace saw it connect, else every exporter of
--peers and of the fleet (--prometheus), the peer found by its QP number
and remote number (probable). Peers are asked only when a QP needs
judging; one that does not answer is a fact in the verdict.

Port counters are shared by the port's QPs: when more than one QP could be
the one retrying, each is named probable with the others listed, unless
its peer shows it idle. rxe has no per-QP counters; it counts RNR NAKs in
rcvd_rnr_err and transport timeouts in completer_retry_err, and retries
forever at retry_cnt 7 (rxe_comp.c), so its stuck QPs never reach ERR.

-j prints a JSON list of objects with dev, lqpn, state, pid, comm, cause,
certainty, why, evidence (lines), fix (lines), since and peer (host, dev,
lqpn, rqpn, state, sq_psn, rq_psn, pid, comm; null when unknown). The exit
status is 0 when nothing needs a look, 3 when something does. A progress
line on stderr counts the readings.

Examples:
  verbscope diagnose
  verbscope diagnose rxe0/17
  verbscope diagnose -j --peers http://10.0.1.2:9879
  verbscope diagnose --readings 8 --interval 500ms --peer-auth /etc/verbscope/peer-auth`,
		FlagsAnywhere: true,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			jsonOut := fs.Bool("j", false, "print a JSON list of verdicts")
			readings := fs.Int("readings", diagnose.DefaultReadings, "take `N` readings")
			interval := fs.Duration("interval", diagnose.DefaultInterval, "`duration` between two readings")
			pf := addPeerFlags(fs, nil)
			return func(ctx context.Context, args []string) error {
				if len(args) > 1 {
					return usageErrorf("diagnose takes at most one QP, as DEV/QPN")
				}
				if *readings < 2 {
					return usageErrorf("--readings %d: at least 2 (a stall shows only between readings)", *readings)
				}
				if *interval < 100*time.Millisecond {
					return usageErrorf("--interval %v is too short: at least 100ms", *interval)
				}
				o := diagnose.RunOptions{Readings: *readings, Interval: *interval}
				if len(args) == 1 {
					k, err := diagnose.ParseQP(args[0])
					if err != nil {
						return usageErrorf("%s", strings.TrimPrefix(err.Error(), "diagnose: "))
					}
					o.Only = &k
				}
				peers, err := pf.open()
				if err != nil {
					return err
				}
				o.Peers = peers
				return runDiagnose(ctx, env, o, *jsonOut)
			}
		},
	}
}

func runDiagnose(ctx context.Context, env *Env, o diagnose.RunOptions, jsonOut bool) error {
	o.Progress = func(i, n int) {
		fmt.Fprintf(env.Stderr, "\rdiagnose: reading %d of %d, every %v ", i, n, o.Interval)
		if i == n {
			fmt.Fprintln(env.Stderr)
		}
	}
	vs, err := diagnose.Run(ctx, o)
	if err != nil {
		fmt.Fprintln(env.Stderr)
		return err
	}
	if jsonOut {
		err = diagnose.WriteJSON(env.Stdout, vs)
	} else {
		err = diagnose.WriteText(env.Stdout, vs, o.Only)
	}
	if err != nil {
		return err
	}
	if len(vs) > 0 {
		return exitError{Code: 3}
	}
	return nil
}
