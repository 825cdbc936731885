package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/live/verbsfacts"
)

// followQPs is `verbscope res qp --follow`: the current QPs, then one
// line per change the inspector's Tracker sees (a QP appeared or
// vanished, changed state, or a traced modify set attributes or failed),
// until ctx ends or count lines were printed (0: no limit).
func followQPs(ctx context.Context, env *Env, req *resRequest, o *outFlags, count int) error {
	conn, err := dialRes(req)
	if err != nil {
		return err
	}
	defer conn.Close()
	readers, err := live.Start(ctx, live.Options{Netlink: true, Conn: conn,
		Snapshot: inspect.SnapshotOptions{Query: req.query, NoCounters: true},
		Trace: &live.TraceOptions{Env: verbsfacts.TraceEnv(),
			Warn: func(msg string) { fmt.Fprintln(env.Stderr, "res: trace: "+msg) },
			Ready: func(n int) {
				fmt.Fprintf(env.Stderr, "res: tracing every process's QP modifies (%d programs attached): changes carry the attributes each modify set\n", n)
			}}})
	if err != nil {
		return err
	}
	defer readers.Close()
	return inspect.NewQPFollower(req.filters).Follow(readers.Frames(), count, inspect.FollowHooks{
		Line: func(l inspect.FollowLine) error {
			if _, err := io.WriteString(env.Stdout, l.Text(o.json)); err != nil {
				return fmt.Errorf("res: write: %w", err)
			}
			return nil
		},
		Empty: func() {
			if !o.json {
				fmt.Fprintln(env.Stderr, "res: no QP yet; following (Ctrl-C ends)")
			}
		},
		Retry: func(err error) { fmt.Fprintf(env.Stderr, "res: reading RDMA netlink: %v (trying again)\n", err) },
	})
}
