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
// from its keyframe on: at 10,000 QPs, 60-120 ms a frame, which playing
// at 64× could not keep up with.
type snapCache struct {
	r *Reader
	// cur is the objects at reading curSeq (nil: none yet).
	cur    map[objKey]liveObj
	curSeq int64
	// key is the objects at keyframe keySeq, never written once made:
	// cur starts from a copy.
	key    map[objKey]liveObj
	keySeq int64
	// snap is the Snapshot made of cur, and changed the kinds of the
	// rows applied to cur since: a step hands over snap's objects of
	// every other kind (an idle recording's readings then share their
	// objects, inspect.Snapshot.SameObjects, and the Tracker and the
	// views skip their work as live).
	snap    *inspect.Snapshot
	changed map[rdma.Kind]bool
}

type objKey struct {
	kind rdma.Kind
	dev  string
	num  uint32
}

// liveObj is an object as its last row (id) wrote it, decoded.
type liveObj struct {
	id  int64
	val inspect.Rowed // *inspect.QP, *inspect.CQ, ...: what decodeObj gives
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
			// Made to the keyframe's size: grown from nothing,
			// 10,000 objects were rehashed a dozen times, 7 ms of a
			// cold jump.
			var n int
			if err := c.r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM objects WHERE seq = ?`, key.Int64).Scan(&n); err != nil {
				return nil, c.r.damaged(err)
			}
			c.key = make(map[objKey]liveObj, n)
			if err := c.apply(ctx, c.key, allRows, key.Int64-1, key.Int64); err != nil {
				return nil, c.r.damaged(err)
			}
			c.keySeq = key.Int64
		}
		c.cur, from = maps.Clone(c.key), key.Int64
		c.snap = nil
	}
	c.changed = map[rdma.Kind]bool{}
	if err := c.apply(ctx, c.cur, lastRows, from, seq); err != nil {
		c.cur, c.snap = nil, nil
		return nil, c.r.damaged(err)
	}
	c.curSeq = seq
	c.snap = snapshotOf(c.cur, time.Unix(0, t.Int64), c.snap, c.changed)
	return c.snap, nil
}

// The rows of the readings after ?1 up to ?2 that apply reads: every
// one in the order written (objects_seq's order: SQLite sorts nothing),
// or only each object's last (SQLite groups them, and the rows an
// object wrote before its last are neither read nor decoded: over a
// span of readings, an object that changed on each wrote on each).
const (
	allRows  = `SELECT id, op = 'vanish', kind, dev, num, body FROM objects WHERE seq > ? AND seq <= ? ORDER BY seq, id`
	lastRows = `SELECT o.id, o.op = 'vanish', o.kind, o.dev, o.num, o.body FROM objects o JOIN (
		SELECT MAX(id) AS id FROM objects WHERE seq > ? AND seq <= ? GROUP BY kind, dev, num) l ON o.id = l.id`
)

// apply writes into objs the rows q gives of the readings after from
// up to to: an object's last row is what it is.
func (c *snapCache) apply(ctx context.Context, objs map[objKey]liveObj, q string, from, to int64) error {
	if to <= from {
		return nil
	}
	// The row's columns, made once: Scan's arguments escape, and made
	// for each row they were five allocations a row.
	var id int64
	var vanish bool
	var kind, dev string
	var num uint32
	var body sql.RawBytes // decoded before the next row: no copy kept
	dest := []any{&id, &vanish, &kind, &dev, &num, &body}
	return c.r.each(ctx, q, func(rs *sql.Rows) error {
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		k := objKey{kind: rdma.Kind(kind), dev: dev, num: num}
		if c.changed != nil {
			c.changed[k.kind] = true
		}
		if vanish {
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

// snapshotOf is objs as a Snapshot at t, in the order their rows were
// written, as Reader.Snapshot gives them: prev's objects of each kind
// not in changed (none when prev is nil), the others made anew. Each
// kind's slice is made to its size: grown by appends, 10,000 QPs were
// copied many times over.
func snapshotOf(objs map[objKey]liveObj, t time.Time, prev *inspect.Snapshot, changed map[rdma.Kind]bool) *inspect.Snapshot {
	s := &inspect.Snapshot{Time: t}
	if prev != nil {
		s.QPs, s.CQs, s.MRs, s.PDs, s.Contexts, s.SRQs, s.CMIDs = prev.QPs, prev.CQs, prev.MRs, prev.PDs, prev.Contexts, prev.SRQs, prev.CMIDs
	}
	made := func(k rdma.Kind) bool { return prev == nil || changed[k] }
	n := map[rdma.Kind]int{}
	var objsMade []liveObj
	for k, o := range objs {
		if made(k.kind) {
			n[k.kind]++
			objsMade = append(objsMade, o)
		}
	}
	remake(&s.QPs, made(rdma.KindQP), n[rdma.KindQP])
	remake(&s.CQs, made(rdma.KindCQ), n[rdma.KindCQ])
	remake(&s.MRs, made(rdma.KindMR), n[rdma.KindMR])
	remake(&s.PDs, made(rdma.KindPD), n[rdma.KindPD])
	remake(&s.Contexts, made(rdma.KindCtx), n[rdma.KindCtx])
	remake(&s.SRQs, made(rdma.KindSRQ), n[rdma.KindSRQ])
	remake(&s.CMIDs, made(rdma.KindCMID), n[rdma.KindCMID])
	slices.SortFunc(objsMade, func(a, b liveObj) int { return cmp.Compare(a.id, b.id) })
	for _, o := range objsMade {
		appendObj(s, o.val)
	}
	return s
}

// remake gives *dst room for n objects to append, when made.
func remake[T any](dst *[]T, made bool, n int) {
	if made {
		*dst = sized[T](n)
	}
}

// sized is a slice with room for n, nil for none (as appends leave it).
func sized[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}
