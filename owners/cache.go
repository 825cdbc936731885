package owners

import "github.com/verbscope/verbscope/inspect"

// Every is how many readings with the same objects reuse the processes
// read for the first of them: a process's limits, cgroup or command line
// can change while its objects do not, and show within that many
// readings.
const Every = 10

// Cache is who holds the objects of a stream of readings, with the one
// policy the dashboard's owners view and the exporter's owner gauges
// share: /proc is read again for a reading with other objects, else the
// last answer stands (an idle host's readings keep their objects'
// generations: inspect.Generations.Same), read again every Every
// readings. The zero value is empty; one reader's goroutine uses it.
type Cache struct {
	gens inspect.Generations // of the objects ps was read for
	ps   []Process           // before AddGrowth
	age  int
}

// Of is who holds f's objects (f.Snapshot, not nil), looked up with look
// as the policy says, each process with f's growth added.
func (c *Cache) Of(f inspect.Frame, look Lookup) []Process {
	if gens := f.Snapshot.Generations(); !gens.Same(c.gens) || c.age+1 >= Every {
		c.gens, c.ps, c.age = gens, Read(f.Snapshot, look), 0
	} else {
		c.age++
	}
	// A copy per frame: AddGrowth appends to each process's Growing,
	// and what a reader was handed is never written.
	ps := append([]Process(nil), c.ps...)
	AddGrowth(ps, f.Update.Growing)
	return ps
}
