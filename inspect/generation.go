package inspect

import "sync/atomic"

// Generations are a reading's change marks: each object kind's
// generation, in rdma.ResourceKinds' order (Snapshot's doc says who
// sets them and what they promise). A reader that derives something
// from every kind keeps the value, which costs no allocation, and
// compares the next reading's with Same.
type Generations [numKinds]uint64

// numKinds is how many kinds resourceKinds lists: an array's length
// must be a constant, and resourceKinds is an array of it, so a kind
// added there is counted here or the build fails.
const numKinds = 7

// lastGeneration numbers the generations of every reading the process
// makes: a generation is never given twice, so readings of different
// makers (a dashboard switched from the live watch to a recording)
// never share one by chance.
var lastGeneration atomic.Uint64

// Generation is kind k's change mark in s: the same non-zero number in
// two readings means the same objects of the kind. It is 0 for a kind
// that s never marked (a Snapshot built by hand), a kind nldev does not
// dump, or a nil s: never the same as anything.
func (s *Snapshot) Generation(k Kind) uint64 {
	if i := kindRank(k); s != nil && i < numKinds {
		return s.gen[i]
	}
	return 0
}

// Generations is every kind's Generation; zero for a nil s.
func (s *Snapshot) Generations() Generations {
	if s == nil {
		return Generations{}
	}
	return s.gen
}

// Same reports whether g and o mark the same objects of every kind:
// each kind marked (not 0) and with the same generation in both.
func (g Generations) Same(o Generations) bool {
	for i := range g {
		if g[i] == 0 || g[i] != o[i] {
			return false
		}
	}
	return true
}

// MarkChanged gives each of kinds a new generation in s: the maker of a
// reading calls it for every kind whose slice it made or edited, before
// the reading is delivered (Snapshot's doc). A kind nldev does not
// dump is passed over.
func (s *Snapshot) MarkChanged(kinds ...Kind) {
	for _, k := range kinds {
		if i := kindRank(k); i < numKinds {
			s.gen[i] = lastGeneration.Add(1)
		}
	}
}

// Reuse hands s prev's objects of kind k with their generation: the
// maker of a reading calls it for a kind that did not change since
// prev, so readers see that it did not.
func (s *Snapshot) Reuse(k Kind, prev *Snapshot) {
	if i := kindRank(k); i < numKinds {
		resourceKinds[i].reuse(s, prev)
		s.gen[i] = prev.gen[i]
	}
}
