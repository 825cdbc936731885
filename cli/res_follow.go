package cli

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mods := traceModifies(ctx, func(msg string) { fmt.Fprintln(env.Stderr, "res: trace: "+msg) }, func(n int) {
		fmt.Fprintf(env.Stderr, "res: tracing every process's QP modifies (%d programs attached): changes carry the attributes each modify set\n", n)
	}, 0)
	w := inspect.Watch(ctx, conn, inspect.WatchOptions{
		Snapshot: inspect.SnapshotOptions{Query: req.query, NoCounters: true},
		Modifies: mods,
	})
	defer w.Close()
	f := newQPFollower(req.filters, o.json)
	first := true
	printed := 0
	for fr := range w.Frames() {
		if fr.Err != nil {
			if first {
				return fr.Err
			}
			fmt.Fprintf(env.Stderr, "res: reading RDMA netlink: %v (trying again)\n", fr.Err)
			continue
		}
		var lines []followLine
		if first {
			lines, first = f.start(fr), false
			if len(lines) == 0 && !o.json {
				fmt.Fprintln(env.Stderr, "res: no QP yet; following (Ctrl-C ends)")
			}
		} else {
			lines = f.next(fr)
		}
		for _, l := range lines {
			if _, err := io.WriteString(env.Stdout, l.text+"\n"); err != nil {
				return fmt.Errorf("res: write: %w", err)
			}
			if l.change {
				printed++
				if count > 0 && printed >= count {
					return nil
				}
			}
		}
	}
	return nil
}

// followLine is one line of res qp --follow; change is false for the
// current table's rows, which -n does not count.
type followLine struct {
	time   time.Time
	text   string
	change bool
}

// qpFollower turns the Watcher's frames into res qp --follow's lines. It
// compares each frame with the one before: QPs that appeared or vanished
// from the rows, history entries that are new.
type qpFollower struct {
	filters inspect.Filters
	json    bool
	rows    map[inspect.Key]inspect.Row
	// last is the newest history entry already reported, per QP.
	last map[inspect.Key]inspect.StateEvent
}

func newQPFollower(flt inspect.Filters, json bool) *qpFollower {
	return &qpFollower{filters: flt, json: json, last: map[inspect.Key]inspect.StateEvent{}}
}

func qpRows(s *inspect.Snapshot) map[inspect.Key]inspect.Row {
	rows := make(map[inspect.Key]inspect.Row, len(s.QPs))
	for i := range s.QPs {
		q := &s.QPs[i]
		rows[inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}] = q.Row(false)
	}
	return rows
}

// start takes the first frame: the current QPs that pass the filters,
// as res qp prints them (with -j one object per line, "event":
// "present").
func (f *qpFollower) start(fr inspect.Frame) []followLine {
	f.rows = qpRows(fr.Snapshot)
	f.markSeen(fr.History)
	var lines []followLine
	for i := range fr.Snapshot.QPs {
		q := &fr.Snapshot.QPs[i]
		row := q.Row(false)
		if !f.filters.Match(row) {
			continue
		}
		text := row.Text()
		if f.json {
			text = f.rowJSON(fr.Snapshot.Time, "present", row)
		}
		lines = append(lines, followLine{time: fr.Snapshot.Time, text: text})
	}
	return lines
}

func (f *qpFollower) markSeen(hist map[inspect.Key][]inspect.StateEvent) {
	for k, h := range hist {
		if len(h) > 0 {
			f.last[k] = h[len(h)-1]
		}
	}
}

// next reports what changed since the previous frame, oldest first.
func (f *qpFollower) next(fr inspect.Frame) []followLine {
	now := fr.Snapshot.Time
	rows := qpRows(fr.Snapshot)
	var lines []followLine
	keys := slices.SortedFunc(func(yield func(inspect.Key) bool) {
		for k := range rows {
			if !yield(k) {
				return
			}
		}
		for k := range f.rows {
			if _, ok := rows[k]; !ok && !yield(k) {
				return
			}
		}
		for k := range fr.History {
			_, a := rows[k]
			_, b := f.rows[k]
			if !a && !b && !yield(k) {
				return
			}
		}
	}, compareKeys)
	for _, k := range keys {
		row, live := rows[k]
		old, was := f.rows[k]
		if !live {
			row = old
		}
		if row == nil {
			row = tracedRow(k, fr.History[k])
		}
		if len(f.filters) > 0 && (row == nil || !f.filters.Match(row)) {
			continue
		}
		fresh, prev, hasPrev := f.fresh(k, fr.History[k])
		if live && !was {
			at := now
			if len(fresh) > 0 && fresh[0].Time.Before(at) {
				at = fresh[0].Time
			}
			lines = append(lines, f.rowLine(at, "appeared", row))
		}
		for _, e := range fresh {
			if e.Gone {
				continue
			}
			if e.Modify != nil || hasPrev {
				lines = append(lines, f.stateLine(k, prev, e))
			}
			prev, hasPrev = e.State, true
		}
		if was && !live {
			lines = append(lines, f.rowLine(now, "vanished", old))
		}
	}
	slices.SortStableFunc(lines, func(a, b followLine) int { return a.time.Compare(b.time) })
	f.rows = rows
	f.markSeen(fr.History)
	return lines
}

// tracedRow stands in for the row of a QP no snapshot saw (created,
// set up and destroyed between two), so that the filters can judge its
// traced modifies: its device, number, state and the process that
// modified it, from the last traced modify.
func tracedRow(k inspect.Key, h []inspect.StateEvent) inspect.Row {
	for i := len(h) - 1; i >= 0; i-- {
		if m := h[i].Modify; m != nil {
			q := inspect.QP{Object: inspect.Object{DevName: k.Dev, PID: uint32(m.PID), Comm: m.Comm}, LQPN: k.ID, State: h[i].State}
			q.Attrs.Add(inspect.AttrResPID)
			return q.Row(false)
		}
	}
	return nil
}

func compareKeys(a, b inspect.Key) int {
	if c := strings.Compare(a.Dev, b.Dev); c != 0 {
		return c
	}
	if a.ID != b.ID {
		if a.ID < b.ID {
			return -1
		}
		return 1
	}
	return strings.Compare(string(a.Kind), string(b.Kind))
}

// fresh returns the entries of h after the last one reported, and the
// state before them (when known).
func (f *qpFollower) fresh(k inspect.Key, h []inspect.StateEvent) (out []inspect.StateEvent, prev inspect.QPState, ok bool) {
	last, seen := f.last[k]
	if !seen {
		return h, 0, false
	}
	for i := len(h) - 1; i >= 0; i-- {
		if sameEvent(h[i], last) {
			return h[i+1:], last.State, true
		}
	}
	return h, last.State, true // the reported ones were trimmed away
}

func sameEvent(a, b inspect.StateEvent) bool {
	return a.Time.Equal(b.Time) && a.State == b.State && a.Gone == b.Gone && a.Modify == b.Modify
}

const followTime = "15:04:05.000000"

func (f *qpFollower) rowLine(at time.Time, event string, row inspect.Row) followLine {
	if f.json {
		return followLine{time: at, text: f.rowJSON(at, event, row), change: true}
	}
	return followLine{time: at, text: at.Format(followTime) + " " + event + " " + row.Text(), change: true}
}

// rowJSON is {"time":..., "event":..., then res qp -j's keys}.
func (f *qpFollower) rowJSON(at time.Time, event string, row inspect.Row) string {
	b := followJSONHead(at, event)
	obj := row.AppendJSON(nil)
	if len(obj) > 2 {
		b = append(append(b, ','), obj[1:]...)
	} else {
		b = append(b, '}')
	}
	return string(b)
}

func followJSONHead(at time.Time, event string) []byte {
	b := append([]byte(nil), `{"time":`...)
	b = view.AppendJSONString(b, at.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"event":`...)
	return view.AppendJSONString(b, event)
}

// stateLine is a state change (from prev to e.State) or a traced modify:
// with its attributes, or failed with its errno and rdma.Check's finding.
func (f *qpFollower) stateLine(k inspect.Key, prev inspect.QPState, e inspect.StateEvent) followLine {
	m := e.Modify
	event, from, to := "state", prev, e.State
	switch {
	case m != nil && m.Ret < 0:
		event, from, to = "modify_failed", m.From, m.To
	case m != nil && !m.HasState:
		event = "modify"
	case m != nil:
		from = m.From
	}
	if f.json {
		b := followJSONHead(e.Time, event)
		b = append(b, `,"ifname":`...)
		b = view.AppendJSONString(b, k.Dev)
		b = append(b, `,"lqpn":`...)
		b = strconv.AppendUint(b, uint64(k.ID), 10)
		if m == nil || m.HasState {
			b = append(b, `,"from":`...)
			b = view.AppendJSONString(b, from.String())
			key := `,"state":`
			if event == "modify_failed" {
				key = `,"to":`
			}
			b = append(b, key...)
			b = view.AppendJSONString(b, to.String())
		}
		if m != nil {
			b = m.AppendJSON(append(b, `,"modify":`...))
		}
		return followLine{time: e.Time, text: string(append(b, '}')), change: true}
	}
	var s strings.Builder
	fmt.Fprintf(&s, "%s %s lqpn %d ", e.Time.Format(followTime), k.Dev, k.ID)
	if m == nil || m.HasState {
		fmt.Fprintf(&s, "%s→%s", from, to)
	} else {
		s.WriteString("modify")
	}
	if m != nil {
		for _, a := range m.Attrs {
			if a.Name != "qp_state" {
				fmt.Fprintf(&s, " %s=%s", a.Name, a.Value)
			}
		}
		if m.Ret < 0 {
			fmt.Fprintf(&s, " = %d %s", m.Ret, m.Errno)
		}
		fmt.Fprintf(&s, " by %s[%d]", view.Printable(m.Comm), m.PID)
		if m.Check != "" {
			s.WriteString(": " + m.Check)
		}
	}
	return followLine{time: e.Time, text: s.String(), change: true}
}
