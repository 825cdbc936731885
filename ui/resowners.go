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
	snap *inspect.Snapshot
	ps   []owners.Process // before AddGrowth
	age  int
}

// ownersOf is who holds f's objects: read from /proc again for a
// reading with other objects, else the last answer (an idle host's
// readings hand over the same objects: inspect.Snapshot.SameObjects),
// read again every ownersEvery readings; each with f's growth added.
func (c *ownersCache) ownersOf(f inspect.Frame, look owners.Lookup) []owners.Process {
	if !f.Snapshot.SameObjects(c.snap) || c.age+1 >= ownersEvery {
		c.snap, c.ps, c.age = f.Snapshot, owners.Read(f.Snapshot, look), 0
	} else {
		c.age++
	}
	// A copy per frame: AddGrowth appends to each process's Growing,
	// and a delivered resData is never written.
	ps := append([]owners.Process(nil), c.ps...)
	owners.AddGrowth(ps, f.Update.Growing)
	return ps
}
