package rec

import (
	"context"
	"database/sql"
	"sort"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// eventMatch tells which events a move to the next one stops at: one
// that happened to an object of kind k whose row, as the views print it
// (inspect's Row), is r. The dashboard makes it from its filter
// (`state=ERR`, `pid=812`, plain words), so `}` lands on the next event
// of an object the view shows.
type eventMatch = func(k rdma.Kind, r view.Row) bool

// eventBatch is how many readings with events are read at a time while
// looking for one whose events match takes: most filters match within
// the first few.
const eventBatch = 256

// eventRows are the rows that are events (an object appeared or
// vanished, a QP's history moved, an alert), with the object each
// happened to.
const eventRows = `SELECT seq, kind, dev, num FROM objects WHERE op IN ('appear', 'vanish') UNION ALL
	SELECT seq, 'qp', dev, qpn FROM transitions UNION ALL SELECT seq, kind, dev, num FROM alerts`

// The readings with events after or before a seq, nearest first.
const (
	eventsAfter  = `SELECT DISTINCT seq FROM (` + eventRows + `) WHERE seq > ? ORDER BY seq LIMIT ?`
	eventsBefore = `SELECT DISTINCT seq FROM (` + eventRows + `) WHERE seq < ? ORDER BY seq DESC LIMIT ?`
)

type eventAt struct {
	seq  int64
	kind string
	dev  string
	num  uint32
}

// event finds the reading after (dir > 0) or before pos where
// something happened, to an object match takes when match is set.
func (p *Player) event(pos, dir int, match eventMatch) (int, bool) {
	ctx := context.Background()
	q := eventsAfter
	if dir < 0 {
		q = eventsBefore
	}
	from := p.res[pos].Seq
	for {
		var seqs []int64
		err := p.r.each(ctx, q, func(rows *sql.Rows) error {
			var seq int64
			err := rows.Scan(&seq)
			seqs = append(seqs, seq)
			return err
		}, from, eventBatch)
		if err != nil || len(seqs) == 0 {
			return 0, false
		}
		for _, seq := range seqs {
			if match == nil || p.readingMatches(ctx, seq, match) {
				return p.readingOf(seq)
			}
		}
		from = seqs[len(seqs)-1]
	}
}

// readingMatches looks at every event of reading seq.
func (p *Player) readingMatches(ctx context.Context, seq int64, match eventMatch) bool {
	var evs []eventAt
	err := p.r.each(ctx, `SELECT seq, kind, dev, num FROM (`+eventRows+`) WHERE seq = ?`, func(rows *sql.Rows) error {
		var e eventAt
		if err := rows.Scan(&e.seq, &e.kind, &e.dev, &e.num); err != nil {
			return err
		}
		evs = append(evs, e)
		return nil
	}, seq)
	if err != nil {
		return false
	}
	for _, e := range evs {
		if p.matches(ctx, e, match) {
			return true
		}
	}
	return false
}

// readingOf is the index of the reading seq (or the next one after it:
// a sys reading's seq is not among the objects' readings).
func (p *Player) readingOf(seq int64) (int, bool) {
	i := sort.Search(len(p.res), func(i int) bool { return p.res[i].Seq >= seq })
	return i, i < len(p.res)
}

// matches rebuilds the object an event happened to, as the reading
// last wrote it up to then (a vanished object as it was before), and
// asks match. An object no reading wrote (a QP created and destroyed
// between two, known only from trace) is not matched.
func (p *Player) matches(ctx context.Context, e eventAt, match eventMatch) bool {
	var body []byte
	err := p.r.db.QueryRowContext(ctx, `SELECT body FROM objects WHERE kind = ? AND dev = ? AND num = ? AND seq <= ? AND body IS NOT NULL
		ORDER BY id DESC LIMIT 1`, e.kind, e.dev, e.num, e.seq).Scan(&body)
	if err != nil {
		return false
	}
	v, err := decodeObj(rdma.Kind(e.kind), body)
	if err != nil {
		return false
	}
	var s inspect.Snapshot
	s.Append(v)
	hit := false
	s.EachObject(func(k inspect.Kind, _ *inspect.Object, _ uint32, x inspect.Rowed) {
		hit = hit || match(k, x.Row(false))
	})
	return hit
}
