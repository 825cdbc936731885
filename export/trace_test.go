package export

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/verbscope/verbscope/inspect"
)

// TestTraceMetrics: without trace the two trace series are absent; while
// its programs load trace_up is 0; once up it is 1, and the events lost
// are a counter.
func TestTraceMetrics(t *testing.T) {
	snap := recorded(t, "idle")
	for _, tc := range []struct {
		name   string
		status *inspect.TraceStatus
		want   string
	}{
		{"untraced", nil, ""},
		{"loading", &inspect.TraceStatus{}, `
# HELP verbscope_trace_events_lost_total Trace events lost since the exporter started: dropped by the kernel because trace's ring buffer was full, skipped because they did not decode, or dropped from the queue of modifies while readings stalled (the next reading is then a whole dump). Present when the exporter traces.
# TYPE verbscope_trace_events_lost_total counter
verbscope_trace_events_lost_total 0
# HELP verbscope_trace_up Whether trace's programs attached (1), so that every QP modify reaches the histories and transitions between readings are counted, or not yet or not at all (0: transitions two readings do not straddle are missed). Present when the exporter traces.
# TYPE verbscope_trace_up gauge
verbscope_trace_up 0
`},
		{"up", &inspect.TraceStatus{Up: true, Lost: 7}, `
# HELP verbscope_trace_events_lost_total Trace events lost since the exporter started: dropped by the kernel because trace's ring buffer was full, skipped because they did not decode, or dropped from the queue of modifies while readings stalled (the next reading is then a whole dump). Present when the exporter traces.
# TYPE verbscope_trace_events_lost_total counter
verbscope_trace_events_lost_total 7
# HELP verbscope_trace_up Whether trace's programs attached (1), so that every QP modify reaches the histories and transitions between readings are counted, or not yet or not at all (0: transitions two readings do not straddle are missed). Present when the exporter traces.
# TYPE verbscope_trace_up gauge
verbscope_trace_up 1
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(Options{})
			c.observe(inspect.Frame{Seq: 1, Snapshot: snap, Trace: tc.status})
			if err := testutil.CollectAndCompare(c, strings.NewReader(tc.want), "verbscope_trace_up", "verbscope_trace_events_lost_total"); err != nil {
				t.Error(err)
			}
		})
	}
}
