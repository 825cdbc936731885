package inspect

import (
	"cmp"
	"context"
	"errors"
	"time"
)

// reconciler takes a Watcher's readings: whole dumps, or, while trace
// drives them (WatchOptions.Reconcile), readings built from the last one
// and what trace touched (Conn.refresh), with a whole dump every
// interval and whenever trace cannot vouch for what it did not report.
type reconciler struct {
	c     *Conn
	opts  SnapshotOptions
	q     *ModifyQueue
	every time.Duration // 0: every reading dumps

	last *Snapshot // the last good reading
	full time.Time // when the last whole dump started
	lost uint64    // trace's losses then
	up   bool      // whether trace was up then
}

func newReconciler(c *Conn, o WatchOptions) *reconciler {
	r := &reconciler{c: c, opts: o.Snapshot, q: o.Modifies}
	// A port's QPs alone (Query.Port) are a filtered dump that a get by
	// number does not follow: those watchers dump.
	if o.Modifies != nil && o.Reconcile >= 0 && o.Snapshot.Query.Port == 0 {
		r.every = cmp.Or(o.Reconcile, defaultReconcileInterval)
	}
	return r
}

// read takes the next reading; fromTrace says it was built from trace's
// events. st is trace's status as the reading starts.
func (r *reconciler) read(ctx context.Context, st *TraceStatus) (s *Snapshot, fromTrace bool, err error) {
	if r.every == 0 {
		if r.q != nil {
			r.q.takeTouched() // a dump reads them all; the queue stays small
		}
		return r.dump(ctx)
	}
	// Taken before any reading starts: what is touched while it reads
	// is read again by the next one.
	t := r.q.takeTouched()
	now := time.Now()
	if r.vouches(st, now) {
		s, err = r.c.refresh(ctx, r.last, t, r.opts, st.Objects)
		switch {
		case err == nil:
			r.last = s
			return s, true, nil
		case !errors.Is(err, errDumpQPs):
			r.last = nil
			return nil, false, err
		}
	}
	r.full, r.lost, r.up = now, st.Lost, st.Up
	return r.dump(ctx)
}

// vouches says whether trace vouches for every change since the last
// whole dump: only if it was up before that dump started and lost
// nothing since (the kernel's ring buffer, a record that did not decode,
// the queue full while readings stalled: TraceStatus.Lost), and the
// interval of whole dumps has not passed.
func (r *reconciler) vouches(st *TraceStatus, now time.Time) bool {
	return r.last != nil && r.up && st.Up && st.Lost == r.lost && now.Sub(r.full) < r.every
}

// dump takes a whole dump, which hands over the last reading's objects
// of each kind that it read again equal, with their generation
// (Snapshot.keepEqual).
func (r *reconciler) dump(ctx context.Context) (*Snapshot, bool, error) {
	s, err := r.c.Snapshot(ctx, r.opts)
	if err != nil {
		r.last = nil
		return nil, false, err
	}
	s.keepEqual(r.last)
	r.last = s
	return s, false, nil
}
