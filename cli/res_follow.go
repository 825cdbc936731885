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
	f := inspect.NewQPFollower(req.filters)
	first := true
	printed := 0
	for fr := range readers.Frames() {
		if fr.Err != nil {
			if first {
				return fr.Err
			}
			fmt.Fprintf(env.Stderr, "res: reading RDMA netlink: %v (trying again)\n", fr.Err)
			continue
		}
		lines := f.Next(fr)
		if first && len(lines) == 0 && !o.json {
			fmt.Fprintln(env.Stderr, "res: no QP yet; following (Ctrl-C ends)")
		}
		first = false
		for _, l := range lines {
			if _, err := io.WriteString(env.Stdout, followText(l, o.json)); err != nil {
				return fmt.Errorf("res: write: %w", err)
			}
			if l.Change() {
				printed++
				if count > 0 && printed >= count {
					return nil
				}
			}
		}
	}
	return nil
}

// followText is one line of res qp --follow, as text or JSON.
func followText(l inspect.FollowLine, json bool) string {
	if json {
		return string(append(l.AppendJSON(nil), '\n'))
	}
	return l.Text() + "\n"
}
