package export

import (
	"fmt"
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// seriesCount is the number of series of one scrape, build_info aside.
func seriesCount(t *testing.T, c *Collector) int {
	t.Helper()
	n := 0
	for _, mf := range gather(t, c) {
		if mf.GetName() != "verbscope_build_info" {
			n += len(mf.GetMetric())
		}
	}
	return n
}

// onDevice returns a copy of s whose devices, summaries and QPs are on
// device dev: the lab's recording as if a second rxe device held it.
func onDevice(s *inspect.Snapshot, dev string) *inspect.Snapshot {
	c := *s
	c.Devices = append([]inspect.Device(nil), s.Devices...)
	for i := range c.Devices {
		c.Devices[i].Name = dev
	}
	c.Summary = append([]inspect.Summary(nil), s.Summary...)
	for i := range c.Summary {
		c.Summary[i].DevName = dev
	}
	c.QPs = append([]inspect.QP(nil), s.QPs...)
	for i := range c.QPs {
		c.QPs[i].DevName = dev
	}
	c.MarkChanged(rdma.KindQP)
	return &c
}

// TestGroupsComeAndGo: a device added with QPs (one moved to ERR, so
// there are transitions) and removed again, a hundred times, each time
// under a new name as rdma link add names them, leaves the series count
// where it started: nothing of a device outlives it.
func TestGroupsComeAndGo(t *testing.T) {
	idle, rts := recorded(t, "idle"), recorded(t, "rc-rts")
	sys := sysfsFixture(t, "rxe0")
	c, clk := newTestCollector(Options{})
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	observe := func(s *inspect.Snapshot) {
		clk.add(1)
		c.observe(inspect.Frame{Snapshot: s, Update: tr.Update(s)})
	}
	observe(idle)
	c.observeSysfs(sys)
	base := seriesCount(t, c)
	for i := range 100 {
		dev := fmt.Sprintf("rxe%d", i+1)
		added := onDevice(rts, dev)
		added.Devices = append(added.Devices, idle.Devices...)
		added.Summary = append(added.Summary, idle.Summary...)
		observe(added)
		errd := withState(added, 18, rdma.QPStateErr)
		observe(errd)
		withDev := sys
		withDev.Devices = append(append(withDev.Devices[:0:0], sys.Devices...), sys.Devices[0])
		withDev.Devices[len(withDev.Devices)-1].Name = dev
		c.observeSysfs(withDev)
		if n := seriesCount(t, c); n <= base || len(c.transitions) == 0 {
			t.Fatalf("cycle %d: %d series and %d transition counts with %s, want more than the %d series without, and the move to ERR",
				i, n, len(c.transitions), dev, base)
		}
		observe(idle)
		c.observeSysfs(sys)
		if n := seriesCount(t, c); n != base {
			t.Fatalf("cycle %d: %d series after %s went, want the %d before it came", i, n, dev, base)
		}
	}
	for g := range c.groups {
		if g.dev != "rxe0" {
			t.Errorf("kept the group %v of a device long gone", g)
		}
	}
	for tr := range c.transitions {
		if tr.Dev != "rxe0" {
			t.Errorf("kept the transition count %v of a device long gone", tr)
		}
	}
}
