package export

import "github.com/prometheus/client_golang/prometheus"

// collectTrace sends verbscope_trace_up and
// verbscope_trace_events_lost_total when the frames are traced.
func (c *Collector) collectTrace(ch chan<- prometheus.Metric) {
	if c.trace == nil {
		return
	}
	up := 0.0
	if c.trace.Up {
		up = 1
	}
	ch <- gauge(descTraceUp, up)
	ch <- counter(descTraceLost, float64(c.trace.Lost))
}
