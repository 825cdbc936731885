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
// kept decoded. Reader.snapshot decodes every object of the reading
// from its keyframe on, which playing at 64× could not keep up with at
// 10,000 QPs (BenchmarkSeek10kQPs and BenchmarkPlay10kQPs measure both:
// docs/record.md).
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
	// every other kind with their generations (an idle recording's
	// readings then share their objects, inspect.Snapshot.SameObjects,
	// and the Tracker and the views skip their work as live), and
	// marks the kinds it makes anew.
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

// at rebuilds the objects of reading seq (Reader.snapshot's result).
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
		if err := c.loadKey(ctx, key.Int64); err != nil {
			return nil, err
		}
		c.cur, from = maps.Clone(c.key), key.Int64
		c.snap = nil
	}
	c.changed = map[rdma.Kind]bool{}
	if err := c.apply(ctx, c.cur, from, seq); err != nil {
		c.cur, c.snap = nil, nil
		return nil, c.r.damaged(err)
	}
	c.curSeq = seq
	c.snap = snapshotOf(c.cur, time.Unix(0, t.Int64), c.snap, c.changed)
	return c.snap, nil
}

// loadKey decodes the objects of keyframe seq into c.key, unless they
// are there already.
func (c *snapCache) loadKey(ctx context.Context, seq int64) error {
	if c.keySeq == seq && c.key != nil {
		return nil
	}
	// Made to the keyframe's size: grown from nothing, 10,000 objects
	// were rehashed a dozen times (BenchmarkSeekHour10kQPs measures a
	// cold jump: docs/performance.md).
	var n int
	if err := c.r.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM objects WHERE seq = ?`, seq).Scan(&n); err != nil {
		return c.r.damaged(err)
	}
	key := make(map[objKey]liveObj, n)
	if err := c.rows(ctx, keyRows, func(r objRow) error { r.put(key); return nil }, seq); err != nil {
		c.key = nil // not keySeq's any more
		return c.r.damaged(err)
	}
	c.key, c.keySeq = key, seq
	return nil
}

// beforeKey rebuilds the objects of the reading before keyframe seq,
// at t, for a Tracker to be seeded with: the keyframe's objects (kept
// decoded, for at(seq) next) with each one the keyframe's reading
// added, changed or removed put back as its last row before said. A
// jump onto a keyframe decoded two keyframes before: its own, and the
// span's before it for the reading before. The objects are not in
// Reader.snapshot's order, which a seed does not need.
func (c *snapCache) beforeKey(ctx context.Context, seq int64, t time.Time) (*inspect.Snapshot, error) {
	if err := c.loadKey(ctx, seq); err != nil {
		return nil, err
	}
	objs := maps.Clone(c.key)
	var kind, dev string
	var num int64
	var id sql.NullInt64
	var vanish sql.NullBool
	var body sql.RawBytes
	dest := []any{&kind, &dev, &num, &id, &vanish, &body}
	err := c.r.each(ctx, `SELECT c.kind, c.dev, c.num, p.id, p.op = 'vanish', p.body FROM objects c LEFT JOIN objects p ON p.id = (
		SELECT id FROM objects WHERE kind = c.kind AND dev = c.dev AND num = c.num AND seq < c.seq ORDER BY seq DESC, id DESC LIMIT 1)
		WHERE c.seq = ? AND c.op != 'key'`, func(rs *sql.Rows) error {
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		k := objKey{kind: rdma.Kind(kind), dev: dev, num: uint32(num)}
		delete(objs, k)
		if !id.Valid || vanish.Bool {
			return nil // not there before
		}
		v, err := decodeObj(k.kind, body)
		if err != nil {
			return err
		}
		objs[k] = liveObj{id: id.Int64, val: v}
		return nil
	}, seq)
	if err != nil {
		return nil, c.r.damaged(err)
	}
	return snapshotOf(objs, t, nil, nil), nil
}

// The rows of the readings after ?1 up to ?2 that apply reads: only
// each object's last (SQLite groups them, and the rows an object wrote
// before its last are neither read nor decoded: over a span of
// readings, an object that changed on each wrote on each). keyRows are
// keyframe ?'s rows in the order written (objects_seq's order: SQLite
// sorts nothing).
const (
	lastRows = `SELECT o.id, o.op = 'vanish', o.kind, o.dev, o.num, o.body FROM objects o JOIN (
		SELECT MAX(id) AS id FROM objects WHERE seq > ? AND seq <= ? GROUP BY kind, dev, num) l ON o.id = l.id`
	keyRows = `SELECT id, op = 'vanish', kind, dev, num, body FROM objects WHERE seq = ? ORDER BY id`
)

// objRow is a row of the objects table, its body decoded.
type objRow struct {
	k      objKey
	o      liveObj
	vanish bool
}

// put writes the row into objs: an object's last row is what it is.
func (r objRow) put(objs map[objKey]liveObj) {
	if r.vanish {
		delete(objs, r.k)
	} else {
		objs[r.k] = r.o
	}
}

// apply writes into objs the rows of the readings after from up to to
// (lastRows), noting their kinds in c.changed.
func (c *snapCache) apply(ctx context.Context, objs map[objKey]liveObj, from, to int64) error {
	if to <= from {
		return nil
	}
	return c.rows(ctx, lastRows, func(r objRow) error {
		c.changed[r.k.kind] = true
		r.put(objs)
		return nil
	}, from, to)
}

// rows calls fn with each row of the objects table q gives, decoded.
func (c *snapCache) rows(ctx context.Context, q string, fn func(objRow) error, args ...any) error {
	// The row's columns, made once: Scan's arguments escape, and made
	// for each row they were allocations of every row
	// (BenchmarkColdSeek10kQPs: docs/performance.md).
	var id int64
	var vanish bool
	var kind, dev string
	var num int64         // not uint32: database/sql converts to one through text
	var body sql.RawBytes // decoded before the next row: no copy kept
	dest := []any{&id, &vanish, &kind, &dev, &num, &body}
	return c.r.each(ctx, q, func(rs *sql.Rows) error {
		if err := rs.Scan(dest...); err != nil {
			return err
		}
		r := objRow{k: objKey{kind: rdma.Kind(kind), dev: dev, num: uint32(num)}, vanish: vanish}
		if !vanish {
			v, err := decodeObj(r.k.kind, body)
			if err != nil {
				return err
			}
			r.o = liveObj{id: id, val: v}
		}
		return fn(r)
	}, args...)
}

// snapshotOf is objs as a Snapshot at t, in the order their rows were
// written, as Reader.snapshot gives them: prev's objects of each kind
// not in changed, with their generation (none when prev is nil), the
// others made anew, with a new one. Each kind's slice is made to its
// size: grown by appends, 10,000 QPs were copied many times over.
func snapshotOf(objs map[objKey]liveObj, t time.Time, prev *inspect.Snapshot, changed map[rdma.Kind]bool) *inspect.Snapshot {
	s := &inspect.Snapshot{Time: t}
	made := func(k rdma.Kind) bool { return prev == nil || changed[k] }
	for _, k := range rdma.ResourceKinds() {
		if made(k) {
			s.MarkChanged(k)
		} else {
			s.Reuse(k, prev)
		}
	}
	n := map[rdma.Kind]int{}
	var objsMade []liveObj
	for k, o := range objs {
		if made(k.kind) {
			n[k.kind]++
			objsMade = append(objsMade, o)
		}
	}
	for _, k := range rdma.ResourceKinds() {
		if made(k) {
			s.Reserve(k, n[k])
		}
	}
	slices.SortFunc(objsMade, func(a, b liveObj) int { return cmp.Compare(a.id, b.id) })
	for _, o := range objsMade {
		s.Append(o.val)
	}
	return s
}
