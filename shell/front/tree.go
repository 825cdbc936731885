package front

import (
	"cmp"
	"hash/maphash"
	"iter"
)

// tree is a persistent ordered map: set and del return a new tree that
// shares every node off the path they changed with the old one, which
// stays as it was. So a State can be kept by a reader while the shell
// builds the next one, and building it costs O(log n) per changed
// object, not a copy of all of them.
//
// It is a treap: a binary search tree on the keys that is also a heap on
// priorities drawn from a hash of the key, which keeps it balanced in
// expectation whatever order the keys come in (the shell's come in
// increasing order, the worst case of a plain search tree).
type tree[K cmp.Ordered, V any] struct {
	root *node[K, V]
}

type node[K cmp.Ordered, V any] struct {
	key         K
	val         V
	prio        uint64
	size        int
	left, right *node[K, V]
}

var prioSeed = maphash.MakeSeed()

// priority hashes a key; equal keys get equal priorities, so a key set
// again keeps its place in the heap.
func priority[K cmp.Ordered](k K) uint64 { return maphash.Comparable(prioSeed, k) }

func (n *node[K, V]) count() int {
	if n == nil {
		return 0
	}
	return n.size
}

// fresh is a copy of n with the given children, its size recounted.
func (n *node[K, V]) fresh(left, right *node[K, V]) *node[K, V] {
	c := *n
	c.left, c.right = left, right
	c.size = 1 + left.count() + right.count()
	return &c
}

// len is how many keys the tree holds.
func (t tree[K, V]) len() int { return t.root.count() }

// get finds a key's value.
func (t tree[K, V]) get(k K) (V, bool) {
	for n := t.root; n != nil; {
		switch {
		case k < n.key:
			n = n.left
		case k > n.key:
			n = n.right
		default:
			return n.val, true
		}
	}
	var zero V
	return zero, false
}

// set returns a tree where k maps to v.
func (t tree[K, V]) set(k K, v V) tree[K, V] {
	return tree[K, V]{insert(t.root, k, v, priority(k))}
}

func insert[K cmp.Ordered, V any](n *node[K, V], k K, v V, p uint64) *node[K, V] {
	if n == nil {
		return &node[K, V]{key: k, val: v, prio: p, size: 1}
	}
	switch {
	case k < n.key:
		l := insert(n.left, k, v, p)
		if l.prio > n.prio { // rotate right: l rises above n
			return l.fresh(l.left, n.fresh(l.right, n.right))
		}
		return n.fresh(l, n.right)
	case k > n.key:
		r := insert(n.right, k, v, p)
		if r.prio > n.prio { // rotate left: r rises above n
			return r.fresh(n.fresh(n.left, r.left), r.right)
		}
		return n.fresh(n.left, r)
	}
	c := n.fresh(n.left, n.right)
	c.val = v
	return c
}

// del returns a tree without k (the same tree if k is not in it).
func (t tree[K, V]) del(k K) tree[K, V] {
	if _, ok := t.get(k); !ok {
		return t
	}
	return tree[K, V]{remove(t.root, k)}
}

func remove[K cmp.Ordered, V any](n *node[K, V], k K) *node[K, V] {
	switch {
	case k < n.key:
		return n.fresh(remove(n.left, k), n.right)
	case k > n.key:
		return n.fresh(n.left, remove(n.right, k))
	}
	return join(n.left, n.right)
}

// join merges two trees whose keys are all smaller in a than in b.
func join[K cmp.Ordered, V any](a, b *node[K, V]) *node[K, V] {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case a.prio > b.prio:
		return a.fresh(a.left, join(a.right, b))
	}
	return b.fresh(join(a, b.left), b.right)
}

// all yields the values in key order.
func (t tree[K, V]) all() iter.Seq[V] {
	return func(yield func(V) bool) { walk(t.root, yield) }
}

func walk[K cmp.Ordered, V any](n *node[K, V], yield func(V) bool) bool {
	return n == nil || (walk(n.left, yield) && yield(n.val) && walk(n.right, yield))
}
