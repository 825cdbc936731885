package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/view"
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
	r := followRow(l)
	if json {
		return string(append(r.AppendJSON(nil), '\n'))
	}
	return r.Text() + "\n"
}

// followTime is the text's clock: a person reads the order of events
// microseconds apart (a QP's INIT, RTR and RTS).
const followTime = "15:04:05.000000"

// followRow is the line as a row, which view prints as text and JSON.
// The text is a present QP as res qp prints it; "12:00:00.200000
// appeared <row>"; "12:00:00.300000 rxe0 lqpn 17 INIT→RTR path_mtu=1024
// by ibv_rc_pingpong[812]". The JSON is "time" and "event", then res qp
// -j's keys for a QP's line, or for a change "ifname", "lqpn", "from"
// and "state" ("to" for a failed modify) and the traced "modify".
func followRow(l inspect.FollowLine) view.Row {
	r := view.Row{
		{Key: "time", Text: l.Time.Format(followTime), Value: l.Time.UTC().Format(time.RFC3339Nano), Bare: true},
		{Key: "event", Text: string(l.Event), Value: string(l.Event), Bare: true},
	}
	switch l.Event {
	case inspect.FollowPresent:
		r[0].NoText, r[1].NoText = true, true
		return append(r, l.Row...)
	case inspect.FollowAppeared, inspect.FollowVanished:
		return append(r, l.Row...)
	}
	r[1].NoText = true
	r = append(r, view.Field{Key: "ifname", Text: l.Key.Dev, Value: l.Key.Dev, Bare: true},
		view.Field{Key: "lqpn", Text: strconv.FormatUint(uint64(l.Key.ID), 10), Value: uint64(l.Key.ID)})
	// A change has a from and a to, unless it is a traced modify
	// without IB_QP_STATE.
	if l.Modify == nil || l.Modify.HasState {
		to := "state"
		if l.Event == inspect.FollowModifyFailed {
			to = "to"
		}
		r = append(r, view.Field{Key: "from", Value: l.From.String(), NoText: true},
			view.Field{Key: to, Text: l.From.String() + "→" + l.To.String(), Value: l.To.String(), Bare: true})
	} else {
		r = append(r, view.Field{Key: "change", Text: "modify", Bare: true, NoJSON: true})
	}
	if l.Modify == nil {
		return r
	}
	m := l.Modify.View()
	if set := m.SetText(); set != "" {
		r = append(r, view.Field{Key: "set", Text: set, Bare: true, NoJSON: true})
	}
	if m.Ret < 0 {
		r = append(r, view.Field{Key: "ret", Text: "= " + strconv.Itoa(m.Ret) + " " + m.Errno, Bare: true, NoJSON: true})
	}
	by := m.Process()
	if m.Check != "" {
		by += ": " + m.Check
	}
	return append(r, view.Field{Key: "by", Text: by, NoJSON: true},
		view.Field{Key: "modify", Value: json.RawMessage(m.AppendJSON(nil, true)), NoText: true})
}
