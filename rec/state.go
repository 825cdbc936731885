package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// ErrNoReading is a time or seq the recording cannot rebuild: before
// its first keyframe, or after its end.
var ErrNoReading = errors.New("no reading there")

// Reading is one row of the readings table.
type Reading struct {
	Seq      int64
	Time     time.Time     // when the reading began
	Took     time.Duration // how long it took: what it saw was so by Time+Took
	Source   string        // "res" (the objects) or "sys" (sysfs)
	Keyframe bool
	Err      string
}

// Readings lists the recording's readings of source ("res", "sys"),
// oldest first, from the first keyframe on: the ones a seek lands on.
func (r *Reader) Readings(ctx context.Context, source string) ([]Reading, error) {
	var out []Reading
	err := r.each(ctx, `SELECT seq, t, took, keyframe, COALESCE(err, '') FROM readings WHERE source = ?1
		AND seq >= (SELECT MIN(seq) FROM readings WHERE source = ?1 AND keyframe) ORDER BY seq`, func(rows *sql.Rows) error {
		rd := Reading{Source: source}
		var t, took int64
		if err := rows.Scan(&rd.Seq, &t, &took, &rd.Keyframe, &rd.Err); err != nil {
			return err
		}
		rd.Time, rd.Took = time.Unix(0, t), time.Duration(took)
		out = append(out, rd)
		return nil
	}, source)
	if err != nil {
		return nil, r.damaged(err)
	}
	return out, nil
}

// seek returns the last reading of the objects at or before t (the
// first one when t is before it).
func (r *Reader) seek(ctx context.Context, t time.Time) (Reading, error) {
	rs, err := r.Readings(ctx, "res")
	if err != nil {
		return Reading{}, err
	}
	if len(rs) == 0 {
		return Reading{}, fmt.Errorf("rec: %s: %w: it holds no complete reading of the objects", r.path, ErrNoReading)
	}
	i := 0
	for i+1 < len(rs) && !rs[i+1].Time.After(t) {
		i++
	}
	return rs[i], nil
}

// snapshot rebuilds the objects as the reading seq saw them: from the
// keyframe at or before it, each object's last row up to seq, every
// kind with a new generation. The snapshot has objects only (no ports,
// counters or system settings: the sys readings hold those).
func (r *Reader) snapshot(ctx context.Context, seq int64) (*inspect.Snapshot, error) {
	var key sql.NullInt64
	var t sql.NullInt64
	err := r.db.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM readings WHERE source = 'res' AND keyframe AND seq <= ?1),
		(SELECT t FROM readings WHERE seq = ?1 AND source = 'res')`, seq).Scan(&key, &t)
	if err != nil {
		return nil, r.damaged(err)
	}
	if !key.Valid || !t.Valid {
		return nil, fmt.Errorf("rec: %s: reading %d: %w", r.path, seq, ErrNoReading)
	}
	s := &inspect.Snapshot{Time: time.Unix(0, t.Int64)}
	s.MarkChanged(rdma.ResourceKinds()...)
	err = r.each(ctx, `SELECT o.kind, o.body FROM objects o JOIN (
			SELECT MAX(id) AS id FROM objects WHERE seq BETWEEN ?1 AND ?2 GROUP BY kind, dev, num) l ON o.id = l.id
		WHERE o.op != 'vanish' ORDER BY o.id`, func(rows *sql.Rows) error {
		var kind string
		var body sql.RawBytes
		if err := rows.Scan(&kind, &body); err != nil {
			return err
		}
		v, err := decodeObj(rdma.Kind(kind), body)
		if err != nil {
			return err
		}
		s.Append(v)
		return nil
	}, key.Int64, seq)
	if err != nil {
		return nil, r.damaged(err)
	}
	return s, nil
}

// decoders decode an object's body as its kind's type.
var decoders = map[rdma.Kind]func([]byte) (inspect.Rowed, error){
	rdma.KindQP:   bodyFunc[inspect.QP](),
	rdma.KindCQ:   bodyFunc[inspect.CQ](),
	rdma.KindMR:   bodyFunc[inspect.MR](),
	rdma.KindPD:   bodyFunc[inspect.PD](),
	rdma.KindCtx:  bodyFunc[inspect.Context](),
	rdma.KindSRQ:  bodyFunc[inspect.SRQ](),
	rdma.KindCMID: bodyFunc[inspect.CMID](),
}

// bodyFunc is T's decoder, giving a *T.
func bodyFunc[T any, P interface {
	*T
	inspect.Rowed
}]() func([]byte) (inspect.Rowed, error) {
	d := newBodyDecoder[T]()
	return func(b []byte) (inspect.Rowed, error) {
		v, err := d.decode(b)
		if err != nil {
			return nil, err
		}
		return P(v), nil
	}
}

// decodeObj decodes an object's body as its kind's type: a *inspect.QP,
// *inspect.CQ, ...
func decodeObj(k rdma.Kind, body []byte) (inspect.Rowed, error) {
	dec, ok := decoders[k]
	if !ok {
		return nil, fmt.Errorf("an object of unknown kind %q", k)
	}
	v, err := dec(body)
	if err != nil {
		return nil, fmt.Errorf("a %s's body: %w", k, err)
	}
	return v, nil
}

func appendJSON[T any](dst *[]T, b []byte) error {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*dst = append(*dst, v)
	return nil
}
