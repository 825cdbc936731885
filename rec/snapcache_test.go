package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestSnapCacheMatchesSnapshot: the Player's incremental rebuild gives
// every reading exactly what Reader.snapshot (the rebuild from its
// keyframe) gives, whatever order the readings are asked in: forward
// (rows applied on the last), backward and jumping (from the keyframe).
func TestSnapCacheMatchesSnapshot(t *testing.T) {
	ctx := context.Background()
	for _, every := range []int{1, 2, 60} {
		r := openT(t, record(t, WriterOptions{KeyEvery: every}))
		rs, err := r.Readings(ctx, "res")
		if err != nil || len(rs) != 5 {
			t.Fatalf("%d readings (%v)", len(rs), err)
		}
		c := snapCache{r: r}
		for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3, 3, 0}} {
			for _, i := range order {
				want, err := r.snapshot(ctx, rs[i].Seq)
				if err != nil {
					t.Fatal(err)
				}
				got, err := c.at(ctx, rs[i].Seq)
				if err != nil {
					t.Fatal(err)
				}
				w, _ := json.Marshal(want)
				g, _ := json.Marshal(got)
				if string(w) != string(g) {
					t.Errorf("key every %d, order %v, reading %d:\n got %s\nwant %s", every, order, i, g, w)
				}
			}
		}
	}
}

// TestHistCacheMatchesHistories: the Player's incremental histories are
// Reader.histories' at every reading, forward and back, and a map it
// handed out is not written by the steps after.
func TestHistCacheMatchesHistories(t *testing.T) {
	ctx := context.Background()
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	rs, err := r.Readings(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	c := histCache{r: r}
	first, err := c.upTo(ctx, rs[1].Time)
	if err != nil {
		t.Fatal(err)
	}
	before := maps.Clone(first)
	for k, h := range before {
		before[k] = slices.Clone(h)
	}
	for _, i := range []int{2, 3, 4, 0, 4, 1} {
		want, err := r.histories(ctx, rs[i].Time)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.upTo(ctx, rs[i].Time)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 && i > 0 {
			t.Fatalf("reading %d has no histories: the scenario's QPs should", i)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("reading %d (-want +got):\n%s", i, d)
		}
	}
	if d := cmp.Diff(before, first); d != "" {
		t.Errorf("a map handed out changed (-before +after):\n%s", d)
	}
	// A step over no transition hands over the same map; one over some,
	// another.
	last, _ := c.upTo(ctx, rs[len(rs)-1].Time)
	again, err := c.upTo(ctx, rs[len(rs)-1].Time.Add(time.Nanosecond))
	if err != nil || !sameMap(last, again) {
		t.Errorf("a step with no transition gave another map (err %v)", err)
	}
	if back, _ := c.upTo(ctx, rs[1].Time); sameMap(back, again) {
		t.Errorf("a step back gave the same map")
	}
}

// TestSnapCacheSharesUnchangedKinds: a step forward hands over the last
// reading's objects of every kind the reading wrote no row of, with
// their generation (the Tracker and the views then skip them, as live),
// and makes anew the kinds it wrote, with a new one; the same reading
// asked again keeps every generation.
func TestSnapCacheSharesUnchangedKinds(t *testing.T) {
	ctx := context.Background()
	r := openT(t, record(t, WriterOptions{KeyEvery: 60}))
	rs, err := r.Readings(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	c := snapCache{r: r}
	prev, err := c.at(ctx, rs[0].Seq)
	if err != nil {
		t.Fatal(err)
	}
	// first is the address of a kind's first object, nil for none.
	first := func(s *inspect.Snapshot, k rdma.Kind) any {
		switch k {
		case rdma.KindQP:
			return firstOf(s.QPs)
		case rdma.KindCQ:
			return firstOf(s.CQs)
		case rdma.KindMR:
			return firstOf(s.MRs)
		case rdma.KindPD:
			return firstOf(s.PDs)
		case rdma.KindCtx:
			return firstOf(s.Contexts)
		}
		return nil
	}
	shared, made := 0, 0
	for i := 1; i < len(rs); i++ {
		wrote := map[rdma.Kind]bool{}
		if err := r.each(ctx, `SELECT DISTINCT kind FROM objects WHERE seq = ?`, func(rows *sql.Rows) error {
			var k string
			err := rows.Scan(&k)
			wrote[rdma.Kind(k)] = true
			return err
		}, rs[i].Seq); err != nil {
			t.Fatal(err)
		}
		s, err := c.at(ctx, rs[i].Seq)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []rdma.Kind{rdma.KindQP, rdma.KindCQ, rdma.KindMR, rdma.KindPD, rdma.KindCtx} {
			a, b := first(prev, k), first(s, k)
			switch {
			case wrote[k] && a != nil && a == b:
				t.Errorf("reading %d wrote %s rows but kept the last reading's", i, k)
			case wrote[k]:
				made++
			case a != b:
				t.Errorf("reading %d wrote no %s row but made its %ss anew", i, k, k)
			case a != nil:
				shared++
			}
		}
		for _, k := range rdma.ResourceKinds() {
			if g := s.Generation(k); g == 0 || (g == prev.Generation(k)) == wrote[k] {
				t.Errorf("reading %d, which wrote %s rows: %v, generation %d after %d", i, k, wrote[k], g, prev.Generation(k))
			}
		}
		prev = s
	}
	if again, err := c.at(ctx, rs[len(rs)-1].Seq); err != nil || !again.SameObjects(prev) {
		t.Errorf("the last reading asked again: generations %v, were %v (err %v)", again.Generations(), prev.Generations(), err)
	}
	if shared == 0 || made == 0 {
		t.Errorf("%d kinds shared and %d made anew over the steps: the scenario should have both", shared, made)
	}
}

func firstOf[T any](s []T) any {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// TestBeforeKeyMatchesSnapshot: the reading before a keyframe, rebuilt
// from that keyframe (a jump onto it seeds its Tracker so), holds the
// objects Reader.snapshot gives for it, order aside: with objects that
// appear, change, vanish and a number taken by another process at the
// keyframe's reading.
func TestBeforeKeyMatchesSnapshot(t *testing.T) {
	ctx := context.Background()
	snaps := scenario()
	reuse := &inspect.Snapshot{Time: t0.Add(10 * time.Second), QPs: []inspect.QP{
		qp(40, 501, "other", rdma.QPStateInit, 0, 0), // 40's number, another process
		qp(30, 300, "victim", rdma.QPStateErr, 5, 5),
		qp(50, 300, "victim", rdma.QPStateRTS, 1, 1),
	}}
	snaps = append(snaps, reuse)
	for _, every := range []int{1, 2} {
		r := openT(t, recordSnaps(t, "before.vsrec", Host{}, WriterOptions{KeyEvery: every}, snaps...))
		rs, err := r.Readings(ctx, "res")
		if err != nil || len(rs) != len(snaps) {
			t.Fatalf("%d readings (%v)", len(rs), err)
		}
		keys := 0
		for i := 1; i < len(rs); i++ {
			if !rs[i].Keyframe {
				continue
			}
			keys++
			want, err := r.snapshot(ctx, rs[i-1].Seq)
			if err != nil {
				t.Fatal(err)
			}
			c := snapCache{r: r}
			got, err := c.beforeKey(ctx, rs[i].Seq, rs[i-1].Time)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(objectSet(want), objectSet(got)); d != "" || !got.Time.Equal(want.Time) {
				t.Errorf("key every %d, before reading %d (-want +got):\n%s (time %v, want %v)", every, i, d, got.Time, want.Time)
			}
		}
		if keys < len(rs)/every-1 {
			t.Errorf("key every %d: only %d keyframes after the first", every, keys)
		}
	}
}

// objectSet is a snapshot's objects as JSON, sorted.
func objectSet(s *inspect.Snapshot) []string {
	var out []string
	s.EachObject(func(_ inspect.Kind, _ *inspect.Object, _ uint32, x inspect.Rowed) {
		b, _ := json.Marshal(x)
		out = append(out, string(b))
	})
	slices.Sort(out)
	return out
}

// sameMap reports whether a and b are the very same map: the cache's
// promise to hand over its last map again (upTo's doc).
func sameMap[K comparable, V any](a, b map[K]V) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}
