package front

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// TestTreeAgainstAMap applies random sets and deletes to the persistent
// tree and to a plain map, keeping every version: each version holds
// exactly what the map held then, in key order, though later versions
// were built from it.
func TestTreeAgainstAMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var versions []tree[int, string]
	var models []map[int]string
	cur, model := tree[int, string]{}, map[int]string{}
	for i := range 3000 {
		k := r.IntN(500)
		if r.IntN(3) == 0 {
			cur = cur.del(k)
			delete(model, k)
		} else {
			v := fmt.Sprint(i)
			cur = cur.set(k, v)
			model[k] = v
		}
		if i%100 == 0 {
			versions, models = append(versions, cur), append(models, maps.Clone(model))
		}
	}
	for i, v := range versions {
		keys := slices.Sorted(maps.Keys(models[i]))
		var want []string
		for _, k := range keys {
			want = append(want, models[i][k])
		}
		if diff := cmp.Diff(want, slices.Collect(v.all())); diff != "" || v.len() != len(keys) {
			t.Fatalf("version %d (len %d, want %d) (-want +got):\n%s", i, v.len(), len(keys), diff)
		}
		for _, k := range keys[:min(len(keys), 20)] {
			if got, ok := v.get(k); !ok || got != models[i][k] {
				t.Fatalf("version %d: get(%d) = %q %v, want %q", i, k, got, ok, models[i][k])
			}
		}
	}
}

// TestTreeStaysShallow: keys set in increasing order (the shell's
// creation order) still give a tree of logarithmic depth, so a change
// copies a short path.
func TestTreeStaysShallow(t *testing.T) {
	var tr tree[uint64, int]
	for i := range uint64(10000) {
		tr = tr.set(i, int(i))
	}
	var depth func(n *node[uint64, int]) int
	depth = func(n *node[uint64, int]) int {
		if n == nil {
			return 0
		}
		return 1 + max(depth(n.left), depth(n.right))
	}
	if d := depth(tr.root); d > 60 {
		t.Errorf("10,000 keys in order make a tree %d deep; a balanced one is about 14, a treap's expectation under 40", d)
	}
}

// TestPutSharesTheRest: a State with one object put again shares every
// other object with the State it came from (the same pointer, not a copy
// of it), and the older State still reads as it was.
func TestPutSharesTheRest(t *testing.T) {
	var st State
	for i := range uint64(1000) {
		st = st.Put(Object{ID: i + 1, Kind: rdma.KindQP, Name: fmt.Sprint("qp", i+1), State: rdma.QPStateReset})
	}
	next := st.Put(Object{ID: 500, Kind: rdma.KindQP, Name: "qp500", State: rdma.QPStateInit})
	for id := range uint64(1000) {
		a, _ := st.byID.get(id + 1)
		b, _ := next.byID.get(id + 1)
		if (a == b) != (id+1 != 500) {
			t.Fatalf("object %d: shared %v", id+1, a == b)
		}
	}
	if o, _ := st.Object("qp500"); o.State != rdma.QPStateReset {
		t.Errorf("the old State's qp500 is %s, want RESET", o.State)
	}
	if o, _ := next.Object("qp500"); o.State != rdma.QPStateInit {
		t.Errorf("the new State's qp500 is %s, want INIT", o.State)
	}
}

// TestPutRenameRemove: a rename (the same ID under another name) moves
// the name; Remove drops the object and its name; creation order holds.
func TestPutRenameRemove(t *testing.T) {
	var st State
	for i, name := range []string{"ctx1", "pd1", "qp1", "qp2"} {
		st = st.Put(Object{ID: uint64(i + 1), Name: name})
	}
	st = st.Put(Object{ID: 3, Name: "client"}).Remove(2)
	var names []string
	for o := range st.Objects() {
		names = append(names, o.Name)
	}
	if diff := cmp.Diff([]string{"ctx1", "client", "qp2"}, names); diff != "" || st.Len() != 3 {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	for name, want := range map[string]bool{"client": true, "qp1": false, "pd1": false, "qp2": true} {
		if _, ok := st.Object(name); ok != want {
			t.Errorf("Object(%q) found %v, want %v", name, ok, want)
		}
	}
	if st.Remove(99).Len() != 3 {
		t.Error("removing an unknown ID changed the State")
	}
}

// TestNextSteps judges a QP's modifies by the kernel's rules when asked,
// and nothing for other objects or an unknown state.
func TestNextSteps(t *testing.T) {
	qp := Object{Kind: rdma.KindQP, QPType: rdma.QPTypeRC, State: rdma.QPStateInit}
	steps := map[rdma.QPState]Step{}
	for _, s := range qp.NextSteps() {
		steps[s.To] = s
	}
	if len(steps) != len(rdma.QPStates) {
		t.Errorf("%d steps judged, want one per state (%d)", len(steps), len(rdma.QPStates))
	}
	if rtr := steps[rdma.QPStateRTR]; !rtr.Legal || !slices.Contains(rtr.Needs, "DEST_QPN") || !slices.Contains(rtr.Needs, "AV") {
		t.Errorf("INIT→RTR %+v, want legal and needing DEST_QPN and AV", rtr)
	}
	if rts := steps[rdma.QPStateRTS]; rts.Legal || rts.Why == "" {
		t.Errorf("INIT→RTS %+v, want illegal with a reason", rts)
	}
	for _, o := range []Object{{Kind: rdma.KindCQ}, {Kind: rdma.KindQP, QPType: rdma.QPTypeRC, State: rdma.QPStateUnknown}} {
		if got := o.NextSteps(); got != nil {
			t.Errorf("%+v: %d steps, want none", o, len(got))
		}
	}
}
