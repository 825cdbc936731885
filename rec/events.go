package rec

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"
)

// Lifetime is one object's life in the recording: from the reading
// that first saw it (or the first keyframe, for one older than the
// recording) to the one that saw it gone, or to the recording's end.
type Lifetime struct {
	Kind  string    `json:"kind"`
	Dev   string    `json:"dev"`
	Num   uint32    `json:"num"`
	PID   uint32    `json:"pid"`
	Comm  string    `json:"comm"`
	Type  string    `json:"qp_type,omitempty"`
	State string    `json:"state,omitempty"` // a QP's last state
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Ended is false for an object still there when the recording
	// stopped.
	Ended bool `json:"ended"`
	// TracedOnly marks a QP no reading showed, created, moved and
	// destroyed between two: its lifetime is its history's, from its
	// first traced modify to its traced destroy (Type is unknown).
	TracedOnly bool `json:"traced_only,omitempty"`
}

// Transition is one QP history event: its first state, a change, or
// its end (Gone), with the traced modify that made it when traced.
type Transition struct {
	Time   time.Time       `json:"time"`
	Dev    string          `json:"dev"`
	QPN    uint32          `json:"qpn"`
	State  string          `json:"state"`
	Gone   bool            `json:"gone"`
	SQPSN  uint32          `json:"sq_psn"`
	RQPSN  uint32          `json:"rq_psn"`
	PID    uint32          `json:"pid"`
	Comm   string          `json:"comm"`
	ByPID  *int64          `json:"by_pid,omitempty"`
	ByComm string          `json:"by_comm,omitempty"`
	Mask   string          `json:"mask,omitempty"`
	Attrs  json.RawMessage `json:"attrs,omitempty"`
	Ret    *int64          `json:"ret,omitempty"`
	Errno  string          `json:"errno,omitempty"`
}

// Alert is an alert's begin or end.
type Alert struct {
	Time     time.Time `json:"time"`
	Op       string    `json:"op"`
	What     string    `json:"what"`
	Kind     string    `json:"kind"`
	Dev      string    `json:"dev"`
	Num      uint32    `json:"num"`
	PID      uint32    `json:"pid"`
	Comm     string    `json:"comm"`
	State    string    `json:"state"`
	Evidence string    `json:"evidence"`
}

// Lifetimes lists every object's lifetimes, by start.
func (r *Reader) Lifetimes(ctx context.Context) ([]Lifetime, error) {
	type key struct {
		kind, dev string
		num       uint32
	}
	open := map[key]int{}
	var out []Lifetime
	var last int64
	err := r.each(ctx, `SELECT r.t, o.op, o.kind, o.dev, o.num, o.pid, o.comm, COALESCE(o.qp_type, ''), COALESCE(o.state, '')
		FROM objects o JOIN readings r USING (seq) ORDER BY o.id`, func(rows *sql.Rows) error {
		var t int64
		var op string
		var l Lifetime
		if err := rows.Scan(&t, &op, &l.Kind, &l.Dev, &l.Num, &l.PID, &l.Comm, &l.Type, &l.State); err != nil {
			return err
		}
		last = max(last, t)
		k := key{l.Kind, l.Dev, l.Num}
		i, live := open[k]
		switch {
		case op == "vanish" && live:
			out[i].End, out[i].Ended = time.Unix(0, t), true
			delete(open, k)
		case op == "vanish":
		case live:
			out[i].State, out[i].Comm = l.State, l.Comm
		default:
			l.Start = time.Unix(0, t)
			open[k] = len(out)
			out = append(out, l)
		}
		return nil
	})
	if err != nil {
		return nil, r.damaged(err)
	}
	if err := r.db.QueryRowContext(ctx, "SELECT COALESCE(MAX(t), 0) FROM readings WHERE source = 'res'").Scan(&last); err != nil {
		return nil, r.damaged(err)
	}
	for _, i := range open {
		out[i].End = time.Unix(0, last)
	}
	traced, err := r.tracedOnly(ctx, out)
	if err != nil {
		return nil, err
	}
	out = append(out, traced...)
	slices.SortStableFunc(out, func(a, b Lifetime) int { return a.Start.Compare(b.Start) })
	return out, nil
}

// tracedOnly are the lifetimes of the QPs no reading showed: a run of a
// QP's history that ends gone (inspect.Tracker.ObserveGone) and meets
// none of the lifetimes of objects under its number.
func (r *Reader) tracedOnly(ctx context.Context, objs []Lifetime) ([]Lifetime, error) {
	type key struct {
		dev string
		num uint32
	}
	seen := map[key][]Lifetime{}
	for _, l := range objs {
		if l.Kind == "qp" {
			seen[key{l.Dev, l.Num}] = append(seen[key{l.Dev, l.Num}], l)
		}
	}
	meets := func(run Lifetime) bool {
		for _, l := range seen[key{run.Dev, run.Num}] {
			if !l.Start.After(run.End) && !l.End.Before(run.Start) {
				return true
			}
		}
		return false
	}
	var out []Lifetime
	runs := map[key]*Lifetime{} // each QP's run since its last end
	err := r.each(ctx, `SELECT t, dev, qpn, state, gone, pid, comm FROM transitions ORDER BY t, id`, func(rows *sql.Rows) error {
		var t int64
		var x Lifetime
		var gone bool
		if err := rows.Scan(&t, &x.Dev, &x.Num, &x.State, &gone, &x.PID, &x.Comm); err != nil {
			return err
		}
		k := key{x.Dev, x.Num}
		run := runs[k]
		if run == nil {
			x.Kind, x.Start, x.TracedOnly = "qp", time.Unix(0, t), true
			run = &x
			runs[k] = run
		}
		run.End = time.Unix(0, t)
		if gone {
			run.Ended = true
			if !meets(*run) {
				out = append(out, *run)
			}
			delete(runs, k)
			return nil
		}
		run.State = x.State
		return nil
	})
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}

// Transitions lists the QP history events, by time.
func (r *Reader) Transitions(ctx context.Context) ([]Transition, error) {
	var out []Transition
	err := r.each(ctx, `SELECT t, dev, qpn, state, gone, sq_psn, rq_psn, pid, comm, by_pid, COALESCE(by_comm, ''), COALESCE(mask, ''),
		attrs, ret, COALESCE(errno, '') FROM transitions ORDER BY t, id`, func(rows *sql.Rows) error {
		var x Transition
		var t int64
		var by, ret sql.NullInt64
		var attrs sql.NullString
		if err := rows.Scan(&t, &x.Dev, &x.QPN, &x.State, &x.Gone, &x.SQPSN, &x.RQPSN, &x.PID, &x.Comm, &by, &x.ByComm, &x.Mask, &attrs, &ret, &x.Errno); err != nil {
			return err
		}
		x.Time = time.Unix(0, t)
		if by.Valid {
			x.ByPID = &by.Int64
		}
		if ret.Valid {
			x.Ret = &ret.Int64
		}
		if attrs.Valid && json.Valid([]byte(attrs.String)) {
			x.Attrs = json.RawMessage(attrs.String)
		}
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}

// Alerts lists the alerts' begins and ends, by time.
func (r *Reader) Alerts(ctx context.Context) ([]Alert, error) {
	var out []Alert
	err := r.each(ctx, "SELECT t, op, what, kind, dev, num, pid, comm, state, evidence FROM alerts ORDER BY t, id", func(rows *sql.Rows) error {
		var a Alert
		var t int64
		if err := rows.Scan(&t, &a.Op, &a.What, &a.Kind, &a.Dev, &a.Num, &a.PID, &a.Comm, &a.State, &a.Evidence); err != nil {
			return err
		}
		a.Time = time.Unix(0, t)
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}

// counterSample is the counters of one port at one sysfs reading.
type counterSample struct {
	Time   time.Time
	Dev    string
	Port   int
	Values map[string]uint64 // by group/name ("counters/port_xmit_data", "hw_counters/sent_pkts")
}

// counters replays the counters: at each sysfs reading, every port's
// values as known then (a counter keeps its value until a row says it
// moved).
func (r *Reader) counters(ctx context.Context, fn func(counterSample)) error {
	type port struct {
		dev  string
		port int
	}
	vals := map[port]map[string]uint64{}
	var cur int64 = -1
	var curT int64
	flush := func() {
		ports := slices.SortedFunc(maps.Keys(vals), func(a, b port) int {
			return cmp.Or(strings.Compare(a.dev, b.dev), a.port-b.port)
		})
		for _, p := range ports {
			fn(counterSample{Time: time.Unix(0, curT), Dev: p.dev, Port: p.port, Values: maps.Clone(vals[p])})
		}
	}
	err := r.each(ctx, `SELECT c.seq, r.t, c.dev, c.port, c.grp || '/' || c.name, c.value FROM counters c JOIN readings r USING (seq) ORDER BY c.seq`, func(rows *sql.Rows) error {
		var seq, t int64
		var p port
		var name string
		var v int64
		if err := rows.Scan(&seq, &t, &p.dev, &p.port, &name, &v); err != nil {
			return err
		}
		if seq != cur && cur >= 0 {
			flush()
		}
		cur, curT = seq, t
		if vals[p] == nil {
			vals[p] = map[string]uint64{}
		}
		vals[p][name] = uint64(v)
		return nil
	})
	if err != nil {
		return r.damaged(err)
	}
	if cur >= 0 {
		flush()
	}
	return nil
}
