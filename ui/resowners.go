package ui

import (
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
)

// ownersEvery is how many readings with the same objects reuse the
// processes read for the first of them: a process's limits, cgroup or
// command line can change while its objects do not, and show within
// that many readings.
const ownersEvery = 10

// ownersCache keeps the last reading's processes (resBuilder.owners).
type ownersCache struct {
	gens inspect.Generations // of the objects ps was read for
	ps   []owners.Process    // before AddGrowth
	age  int
}

// ownersOf is who holds f's objects: read from /proc again for a
// reading with other objects, else the last answer (an idle host's
// readings keep their objects' generations: inspect.Generations.Same),
// read again every ownersEvery readings; each with f's growth added.
func (c *ownersCache) ownersOf(f inspect.Frame, look owners.Lookup) []owners.Process {
	if gens := f.Snapshot.Generations(); !gens.Same(c.gens) || c.age+1 >= ownersEvery {
		c.gens, c.ps, c.age = gens, owners.Read(f.Snapshot, look), 0
	} else {
		c.age++
	}
	// A copy per frame: AddGrowth appends to each process's Growing,
	// and a delivered resData is never written.
	ps := append([]owners.Process(nil), c.ps...)
	owners.AddGrowth(ps, f.Update.Growing)
	return ps
}
