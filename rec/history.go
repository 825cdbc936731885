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

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// historyLen is how many events of a QP's history a replayed frame
// carries: the Tracker's default.
const historyLen = 64

// histories rebuilds every QP's history as the Tracker had it at t:
// the transitions up to t, the last historyLen of each QP, with the
// traced modifies that made them.
func (r *Reader) histories(ctx context.Context, t time.Time) (map[inspect.Key][]inspect.StateEvent, error) {
	out := map[inspect.Key][]inspect.StateEvent{}
	if err := r.addHistories(ctx, func() map[inspect.Key][]inspect.StateEvent { return out }, time.Time{}, t); err != nil {
		return nil, err
	}
	return out, nil
}

// addHistories appends the transitions after from (all, when from is
// zero) up to to to the map that into gives, asked only when there are
// some. A history the map holds is never written: one that grows is a
// new slice, so a map delivered before stays as it was.
func (r *Reader) addHistories(ctx context.Context, into func() map[inspect.Key][]inspect.StateEvent, from, to time.Time) error {
	lo := int64(-1 << 63)
	if !from.IsZero() {
		lo = from.UnixNano()
	}
	// The rows come in the order written and are put in time order
	// here: SQLite would sort every column of every row. A traced
	// modify's columns are read for the rows that have one only: each
	// column of each row costs, and most QPs have none (an untraced
	// recording, a QP's first state).
	type row struct {
		id, t int64
		k     inspect.Key
		e     inspect.StateEvent
	}
	var all []row
	traced := map[int64]int{} // id: its row in all
	// The row's columns, made once (Scan's arguments escape).
	var x row
	var state string
	var modified bool
	// Numbers into int64s: database/sql converts to a uint32 through
	// its text, an allocation and a parse of each.
	var qpn, sq, rq int64
	dest := []any{&x.id, &x.t, &x.k.Dev, &qpn, &state, &x.e.Gone, &sq, &rq, &modified}
	err := r.each(ctx, `SELECT id, t, dev, qpn, state, gone, sq_psn, rq_psn, by_pid IS NOT NULL
		FROM transitions WHERE t > ? AND t <= ?`, func(rows *sql.Rows) error {
		x = row{k: inspect.Key{Kind: rdma.KindQP}}
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		x.k.ID, x.e.SQPSN, x.e.RQPSN = uint32(qpn), uint32(sq), uint32(rq)
		x.e.Time = time.Unix(0, x.t)
		x.e.State, _ = rdma.ParseQPState(state)
		if modified {
			traced[x.id] = len(all)
		}
		all = append(all, x)
		return nil
	}, lo, to.UnixNano())
	if err == nil && len(traced) > 0 {
		err = r.each(ctx, `SELECT id, by_pid, COALESCE(by_comm, ''), COALESCE(mask, ''), attrs, ret, COALESCE(errno, '')
			FROM transitions WHERE t > ? AND t <= ? AND by_pid IS NOT NULL`, func(rows *sql.Rows) error {
			var id, by int64
			var byComm, mask, errno string
			var ret sql.NullInt64
			var attrs sql.NullString
			if err := rows.Scan(&id, &by, &byComm, &mask, &attrs, &ret, &errno); err != nil {
				return err
			}
			if i, ok := traced[id]; ok {
				x := &all[i]
				x.e.Modify = modifyOf(x.e, x.k.Dev, x.k.ID, by, byComm, mask, attrs.String, ret.Int64, errno)
			}
			return nil
		}, lo, to.UnixNano())
	}
	if err != nil {
		return r.damaged(err)
	}
	if len(all) == 0 {
		return nil
	}
	out := into()
	slices.SortFunc(all, func(a, b row) int { return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.id, b.id)) })
	grown := make(map[inspect.Key]bool, len(all))
	for _, x := range all {
		h := out[x.k]
		if !grown[x.k] {
			h, grown[x.k] = slices.Clip(h), true // the first append copies
		}
		h = append(h, x.e)
		if len(h) > historyLen {
			h = h[len(h)-historyLen:]
		}
		out[x.k] = h
	}
	return nil
}

// histCache rebuilds a Player's histories from the last ones: a step
// forward reads only the transitions since.
type histCache struct {
	r   *Reader
	at  time.Time
	out map[inspect.Key][]inspect.StateEvent
}

// upTo returns the histories at t in a map never written after: the
// cache goes on with a copy when transitions follow, and a step with
// none returns the same map again.
func (c *histCache) upTo(ctx context.Context, t time.Time) (map[inspect.Key][]inspect.StateEvent, error) {
	from, next := c.at, c.out
	// A step with no transition hands over the same map (a reader can
	// tell by it: rec's writer does); one with some, a copy made then.
	into := func() map[inspect.Key][]inspect.StateEvent {
		next = maps.Clone(c.out)
		return next
	}
	if c.out == nil || t.Before(c.at) {
		from, next = time.Time{}, make(map[inspect.Key][]inspect.StateEvent, len(c.out))
		fresh := next
		into = func() map[inspect.Key][]inspect.StateEvent { return fresh }
	}
	if err := c.r.addHistories(ctx, into, from, t); err != nil {
		c.out = nil
		return nil, err
	}
	c.out, c.at = next, t
	return next, nil
}

// modifyOf rebuilds a traced modify from its transition's columns: the
// attributes come back as text, by name, from the JSON object.
func modifyOf(e inspect.StateEvent, dev string, qpn uint32, pid int64, comm, mask, attrs string, ret int64, errno string) *inspect.Modify {
	m := &inspect.Modify{Time: e.Time, Dev: dev, QPN: qpn, PID: int(pid), Comm: comm, Mask: strings.Fields(mask),
		Ret: int(ret), Errno: errno, To: e.State, HasState: slices.Contains(strings.Fields(mask), "IB_QP_STATE")}
	var obj map[string]json.RawMessage
	if attrs != "" && json.Unmarshal([]byte(attrs), &obj) == nil {
		m.AttrsJSON = []byte(attrs)
		for _, name := range slices.Sorted(maps.Keys(obj)) {
			v := string(obj[name])
			var s string
			if json.Unmarshal(obj[name], &s) == nil {
				v = s
			}
			m.Attrs = append(m.Attrs, inspect.ModifyAttr{Name: name, Value: v})
		}
	}
	return m
}
