package rec

import (
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

// Histories rebuilds every QP's history as the Tracker had it at t:
// the transitions up to t, the last historyLen of each QP, with the
// traced modifies that made them.
func (r *Reader) Histories(ctx context.Context, t time.Time) (map[inspect.Key][]inspect.StateEvent, error) {
	out := map[inspect.Key][]inspect.StateEvent{}
	err := r.each(ctx, `SELECT t, dev, qpn, state, gone, sq_psn, rq_psn, by_pid, COALESCE(by_comm, ''), COALESCE(mask, ''),
		attrs, ret, COALESCE(errno, '') FROM transitions WHERE t <= ? ORDER BY t, id`, func(rows *sql.Rows) error {
		var ns int64
		var dev, state, byComm, mask, errno string
		var qpn, sq, rq uint32
		var gone bool
		var by, ret sql.NullInt64
		var attrs sql.NullString
		if err := rows.Scan(&ns, &dev, &qpn, &state, &gone, &sq, &rq, &by, &byComm, &mask, &attrs, &ret, &errno); err != nil {
			return err
		}
		st, _ := rdma.ParseQPState(state)
		e := inspect.StateEvent{Time: time.Unix(0, ns), State: st, Gone: gone, SQPSN: sq, RQPSN: rq}
		if by.Valid {
			e.Modify = modifyOf(e, dev, qpn, by.Int64, byComm, mask, attrs.String, ret.Int64, errno)
		}
		k := inspect.Key{Kind: rdma.KindQP, Dev: dev, ID: qpn}
		h := append(out[k], e)
		if len(h) > historyLen {
			h = h[len(h)-historyLen:]
		}
		out[k] = h
		return nil
	}, t.UnixNano())
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
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
