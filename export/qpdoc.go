package export

import (
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// hiddenFields are the keys of a QP's line that /api/v1/qps serves only
// to authenticated clients: what RDMA netlink hides from an unprivileged
// user (the keys; a QP line has none today, named so one added later
// stays hidden) and what lets a remote party join or spoof a connection
// (the PSNs and the peer's QP number, dest_qp_num).
var hiddenFields = map[string]bool{
	"rqpn": true, "sq-psn": true, "rq-psn": true,
	"qkey": true, "lkey": true, "rkey": true, "local_dma_lkey": true,
}

// qpDoc is one netlink reading's /api/v1/qps: every QP's JSON object,
// serialised once per reading and shape (with or without the hidden
// fields) on the first request that asks, then shared by every request
// until the next reading; built outside the Collector's lock, so a slow
// build never holds up a scrape or the poll loop.
type qpDoc struct {
	s    *inspect.Snapshot
	hist map[inspect.Key][]inspect.StateEvent
	// verdicts are the diagnosis's, by QP (nil when none needs a look).
	verdicts map[inspect.Key]*diagnose.Verdict

	goneOnce [2]sync.Once
	goneJSON [2][][]byte

	rowsOnce sync.Once
	entries  []qpEntry
	// bodies are the whole answers, public [0] and sensitive [1].
	once   [2]sync.Once
	bodies [2][]byte
}

// qpEntry is one QP of a qpDoc, in (device, lqpn) order: its line for
// the filters and its JSON object in each shape.
type qpEntry struct {
	cursor qpCursor
	row    view.Row
	json   [2][]byte
}

func newQPDoc(s *inspect.Snapshot, hist map[inspect.Key][]inspect.StateEvent, verdicts map[inspect.Key]*diagnose.Verdict) *qpDoc {
	return &qpDoc{s: s, hist: hist, verdicts: verdicts}
}

// rows returns the entries with their lines, sorted, without JSON yet.
func (d *qpDoc) rows() []qpEntry {
	d.rowsOnce.Do(func() {
		d.entries = make([]qpEntry, len(d.s.QPs))
		for i := range d.s.QPs {
			q := &d.s.QPs[i]
			d.entries[i] = qpEntry{cursor: qpCursor{q.DevName, q.LQPN}, row: q.Row(false)}
		}
		slices.SortFunc(d.entries, func(a, b qpEntry) int { return compareCursors(a.cursor, b.cursor) })
	})
	return d.entries
}

// body returns the entries with their JSON in one shape, and the whole
// answer: the JSON array of every QP.
func (d *qpDoc) body(sensitive bool) ([]qpEntry, []byte) {
	v := boolIndex(sensitive)
	entries := d.rows()
	d.once[v].Do(func() {
		b := []byte{'['}
		ends := make([]int, len(entries)+1)
		ends[0] = len(b)
		for i := range entries {
			if i > 0 {
				b = append(b, ',')
			}
			e := &entries[i]
			k := inspect.Key{Kind: rdma.KindQP, Dev: e.cursor.dev, ID: e.cursor.lqpn}
			b = appendQP(b, e.row, d.hist[k], d.verdicts[k], sensitive)
			ends[i+1] = len(b)
		}
		b = append(b, "]\n"...)
		// The entries share the body's array; each starts after the
		// comma that ends the previous one.
		for i := range entries {
			start := ends[i]
			if i > 0 {
				start++
			}
			entries[i].json[v] = b[start:ends[i+1]:ends[i+1]]
		}
		d.bodies[v] = b
	})
	return entries, d.bodies[v]
}

// appendQP writes one QP: the keys and values of `verbscope res qp -j`
// plus its "history" and, when the diagnosis has one, its "verdict", the
// hidden fields left out unless sensitive.
func appendQP(b []byte, row view.Row, hist []inspect.StateEvent, v *diagnose.Verdict, sensitive bool) []byte {
	if !sensitive {
		row = slices.Clone(row)
		for i := range row {
			if hiddenFields[row[i].Key] {
				row[i].NoJSON = true
			}
		}
	}
	obj := row.AppendJSON(b)
	b = obj[:len(obj)-1] // reopen the object for "history"
	b = append(b, `,"history":[`...)
	for j, e := range hist {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, e, sensitive)
	}
	b = append(b, ']')
	if v != nil {
		b = appendVerdict(append(b, `,"verdict":`...), v, sensitive)
	}
	return append(b, '}')
}

// appendEvent writes one history entry. Without sensitive it leaves out
// the PSNs and, of a traced modify, the attributes and rdma.Check's
// finding (which quotes them: a qkey, a DGID): the mask still names
// what the modify set.
func appendEvent(b []byte, e inspect.StateEvent, sensitive bool) []byte {
	b = append(b, `{"time":`...)
	b = view.AppendJSONString(b, e.Time.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"state":`...)
	b = view.AppendJSONString(b, e.State.String())
	if sensitive {
		b = append(b, `,"sq-psn":`...)
		b = strconv.AppendUint(b, uint64(e.SQPSN), 10)
		b = append(b, `,"rq-psn":`...)
		b = strconv.AppendUint(b, uint64(e.RQPSN), 10)
	}
	b = append(b, `,"gone":`...)
	b = strconv.AppendBool(b, e.Gone)
	if e.Modify != nil {
		m := e.Modify.View()
		b = m.AppendJSON(append(b, `,"modify":`...), sensitive)
	}
	return append(b, '}')
}

// appendVerdict writes a QP's verdict: whole (diagnose.Verdict's JSON)
// to a client that gets the hidden fields, else its cause and certainty
// only (the evidence quotes PSNs and the peer's QP number).
func appendVerdict(b []byte, v *diagnose.Verdict, sensitive bool) []byte {
	if !sensitive {
		b = append(b, `{"cause":`...)
		b = view.AppendJSONString(b, string(v.Cause))
		b = append(b, `,"certainty":`...)
		b = view.AppendJSONString(b, string(v.Certainty))
		return append(b, '}')
	}
	j, err := json.Marshal(v)
	if err != nil {
		return append(b, "null"...)
	}
	return append(b, j...)
}

// gone returns the JSON objects of the QPs destroyed lately (histories
// the Tracker keeps whose QP the reading no longer shows), by device and
// number: ifname, lqpn, the last state, "gone": true, "gone-at", the pid
// and comm of the last traced modify when there is one, and the history.
func (d *qpDoc) gone(sensitive bool) [][]byte {
	v := boolIndex(sensitive)
	d.goneOnce[v].Do(func() {
		live := make(map[qpCursor]bool, len(d.s.QPs))
		for i := range d.s.QPs {
			live[qpCursor{d.s.QPs[i].DevName, d.s.QPs[i].LQPN}] = true
		}
		var keys []inspect.Key
		for k, h := range d.hist {
			if k.Kind == rdma.KindQP && len(h) > 0 && h[len(h)-1].Gone && !live[qpCursor{k.Dev, k.ID}] {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b inspect.Key) int { return compareCursors(qpCursor{a.Dev, a.ID}, qpCursor{b.Dev, b.ID}) })
		for _, k := range keys {
			d.goneJSON[v] = append(d.goneJSON[v], appendGone(nil, k, d.hist[k], sensitive))
		}
	})
	return d.goneJSON[v]
}

func appendGone(b []byte, k inspect.Key, hist []inspect.StateEvent, sensitive bool) []byte {
	last := hist[len(hist)-1] // the Gone entry, with the last state seen
	state := last.State
	b = append(b, `{"ifname":`...)
	b = view.AppendJSONString(b, k.Dev)
	b = append(b, `,"lqpn":`...)
	b = strconv.AppendUint(b, uint64(k.ID), 10)
	b = append(b, `,"state":`...)
	b = view.AppendJSONString(b, state.IPRoute2())
	b = append(b, `,"gone":true,"gone-at":`...)
	b = view.AppendJSONString(b, last.Time.UTC().Format(time.RFC3339Nano))
	for i := len(hist) - 1; i >= 0; i-- {
		if m := hist[i].Modify; m != nil {
			b = append(b, `,"pid":`...)
			b = strconv.AppendInt(b, int64(m.PID), 10)
			b = append(b, `,"comm":`...)
			b = view.AppendJSONString(b, m.Comm)
			break
		}
	}
	b = append(b, `,"history":[`...)
	for j, e := range hist {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendEvent(b, e, sensitive)
	}
	return append(b, "]}"...)
}
