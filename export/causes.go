package export

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
)

// descCauses is the diagnosis's count: labels device and cause only
// (diagnose.Causes, nine values), never a QP number.
var descCauses = desc("qps_by_cause", "QPs that need a look, by the cause the diagnosis gives (verbscope diagnose): "+
	"rnr, peer_gone, peer_not_ready, wrong_destination, remote_access, link_down, flushed, owner_exited, no_response.", "device", "cause")

type causeKey struct {
	dev   string
	cause diagnose.Cause
}

// diagnose gives the frame's verdicts by QP (nil when none).
func (c *Collector) diagnose(f inspect.Frame) map[inspect.Key]*diagnose.Verdict {
	if f.Err != nil || f.Snapshot == nil {
		return nil
	}
	vs := c.diag.Observe(context.Background(), diagnose.FromFrame(f))
	if len(vs) == 0 {
		return nil
	}
	out := make(map[inspect.Key]*diagnose.Verdict, len(vs))
	for i := range vs {
		out[vs[i].Key()] = &vs[i]
	}
	return out
}

func countCauses(vs map[inspect.Key]*diagnose.Verdict) map[causeKey]int {
	if len(vs) == 0 {
		return nil
	}
	out := map[causeKey]int{}
	for _, v := range vs {
		out[causeKey{v.Dev, v.Cause}]++
	}
	return out
}

// collectCauses sends verbscope_qps_by_cause for every device and cause,
// 0 included: a cause that clears goes to 0 rather than vanishing.
func (c *Collector) collectCauses(ch chan<- prometheus.Metric, s *inspect.Snapshot) {
	for _, d := range s.Devices {
		for _, cause := range diagnose.Causes {
			ch <- gauge(descCauses, float64(c.causes[causeKey{d.Name, cause}]), d.Name, string(cause))
		}
	}
}
