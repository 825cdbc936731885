package export

import (
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestRemovedDeviceTakesItsSeries: the exporter asks each device's limits
// once, at start; after `rdma link delete rxe1` the reading lists rxe1 no
// more, and no series names it, its resource_usage_ratio included.
func TestRemovedDeviceTakesItsSeries(t *testing.T) {
	rts := recorded(t, "rc-rts")
	lim := inspect.Limits{MaxQP: 1024, MaxCQ: 16384, MaxMR: 262144, MaxPD: 32768, MaxSRQ: 1024}
	tr := inspect.NewTracker(inspect.TrackerConfig{Limits: map[string]inspect.Limits{"rxe0": lim, "rxe1": lim}})
	c, clk := newTestCollector(Options{})
	observe := func(s *inspect.Snapshot) {
		clk.add(1)
		c.observe(inspect.Frame{Snapshot: s, Update: tr.Update(s)})
	}
	both := onDevice(rts, "rxe1")
	both.Devices = append(both.Devices, rts.Devices...)
	both.Summary = append(both.Summary, rts.Summary...)
	both.QPs = append(both.QPs, rts.QPs...)
	both.MarkChanged(rdma.KindQP)
	observe(both)
	if n := deviceSeries(t, c, "rxe1"); n["verbscope_resource_usage_ratio"] != 5 {
		t.Fatalf("with rxe1: %v series name it, want 5 of resource_usage_ratio among them", n)
	}
	observe(rts)
	if n := deviceSeries(t, c, "rxe1"); len(n) != 0 {
		t.Errorf("after rxe1 went, series still name it: %v", n)
	}
	if n := deviceSeries(t, c, "rxe0"); n["verbscope_resource_usage_ratio"] != 5 {
		t.Errorf("rxe0 stays: %v series name it, want its 5 of resource_usage_ratio", n)
	}
}

// deviceSeries counts the series of each metric whose device label is
// dev.
func deviceSeries(t *testing.T, c *Collector, dev string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, mf := range gather(t, c) {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "device" && l.GetValue() == dev {
					out[mf.GetName()]++
				}
			}
		}
	}
	return out
}
