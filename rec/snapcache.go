package rec

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// snapCache rebuilds a Player's readings from the last one it rebuilt:
// a step forward applies only the rows the readings between wrote (what
// changed), and a step back starts again from the keyframe's objects,
// kept decoded. Reader.Snapshot decodes every object of the reading
// from its keyframe on: at 10,000 QPs, a quarter of a second a frame,
// which playing at 64× could not keep up with.
type snapCache struct {
	r *Reader
	// cur is the objects at reading curSeq (nil: none yet).
	cur    map[objKey]liveObj
	curSeq int64
	// key is the objects at keyframe keySeq, never written once made:
	// cur starts from a copy.
	key    map[objKey]liveObj
	keySeq int64
}

type objKey struct {
	kind rdma.Kind
	dev  string
	num  uint32
}

// liveObj is an object as its last row (id) wrote it, decoded.
type liveObj struct {
	id  int64
	val any // inspect.QP, inspect.CQ, ...: what decodeObj gives
}

// at rebuilds the objects of reading seq (Reader.Snapshot's result).
func (c *snapCache) at(ctx context.Context, seq int64) (*inspect.Snapshot, error) {
	var key, t, oldest sql.NullInt64
	err := c.r.db.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM readings WHERE source = 'res' AND keyframe AND seq <= ?1),
		(SELECT t FROM readings WHERE seq = ?1 AND source = 'res'), (SELECT MIN(seq) FROM readings)`, seq).Scan(&key, &t, &oldest)
	if err != nil {
		return nil, c.r.damaged(err)
	}
	if !key.Valid || !t.Valid {
		return nil, fmt.Errorf("rec: %s: reading %d: %w", c.r.path, seq, ErrNoReading)
	}
	// Forward from the last reading rebuilt when it is in seq's
	// keyframe span and the rows since are all there (the writer prunes
	// the oldest readings of a file it is still writing: a rewind's);
	// else from the keyframe, decoded once for all the span's readings.
	from := c.curSeq
	if c.cur == nil || seq < c.curSeq || c.curSeq < oldest.Int64 || c.curSeq < key.Int64 {
		if c.keySeq != key.Int64 || c.key == nil {
			c.key = map[objKey]liveObj{}
			if err := c.apply(ctx, c.key, key.Int64-1, key.Int64); err != nil {
				return nil, c.r.damaged(err)
			}
			c.keySeq = key.Int64
		}
		c.cur, from = maps.Clone(c.key), key.Int64
	}
	if err := c.apply(ctx, c.cur, from, seq); err != nil {
		c.cur = nil
		return nil, c.r.damaged(err)
	}
	c.curSeq = seq
	return snapshotOf(c.cur, time.Unix(0, t.Int64)), nil
}

// apply writes into objs the rows of the readings after from up to to,
// in the order written: an object's last row is what it is.
func (c *snapCache) apply(ctx context.Context, objs map[objKey]liveObj, from, to int64) error {
	if to <= from {
		return nil
	}
	return c.r.each(ctx, `SELECT id, op, kind, dev, num, body FROM objects WHERE seq > ? AND seq <= ? ORDER BY id`, func(rows *sql.Rows) error {
		var id int64
		var op, kind string
		var k objKey
		var body []byte
		if err := rows.Scan(&id, &op, &kind, &k.dev, &k.num, &body); err != nil {
			return err
		}
		k.kind = rdma.Kind(kind)
		if op == "vanish" {
			delete(objs, k)
			return nil
		}
		v, err := decodeObj(k.kind, body)
		if err != nil {
			return err
		}
		objs[k] = liveObj{id: id, val: v}
		return nil
	}, from, to)
}

// decodeObj decodes an object's body as its kind's type.
func decodeObj(k rdma.Kind, body []byte) (any, error) {
	dec, ok := decoders[k]
	if !ok {
		return nil, fmt.Errorf("an object of unknown kind %q", k)
	}
	var s inspect.Snapshot
	if err := dec(&s, body); err != nil {
		return nil, fmt.Errorf("a %s's body: %w", k, err)
	}
	var v any
	s.EachObject(func(_ inspect.Kind, _ *inspect.Object, _ uint32, x inspect.Rowed) { v = x })
	return v, nil
}

// snapshotOf is objs as a Snapshot at t, in the order their rows were
// written, as Reader.Snapshot gives them.
func snapshotOf(objs map[objKey]liveObj, t time.Time) *inspect.Snapshot {
	all := slices.SortedFunc(maps.Values(objs), func(a, b liveObj) int { return cmp.Compare(a.id, b.id) })
	s := &inspect.Snapshot{Time: t}
	for _, o := range all {
		switch v := o.val.(type) {
		case *inspect.QP:
			s.QPs = append(s.QPs, *v)
		case *inspect.CQ:
			s.CQs = append(s.CQs, *v)
		case *inspect.MR:
			s.MRs = append(s.MRs, *v)
		case *inspect.PD:
			s.PDs = append(s.PDs, *v)
		case *inspect.Context:
			s.Contexts = append(s.Contexts, *v)
		case *inspect.SRQ:
			s.SRQs = append(s.SRQs, *v)
		case *inspect.CMID:
			s.CMIDs = append(s.CMIDs, *v)
		}
	}
	return s
}
