//go:build lab

package cli

import (
	"regexp"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestExportTraceMetrics: the exporter says whether trace is up and what
// it lost: verbscope_trace_up goes to 1 once its programs attached, and
// verbscope_trace_events_lost_total is exported (0 on a quiet lab).
func TestExportTraceMetrics(t *testing.T) {
	labkit.Clean(t)
	addr := "127.0.0.1:19880"
	x := labkit.Start(t, "verbscope", "export", "--web.listen-address="+addr, "--interval=500ms")
	up := regexp.MustCompile(`(?m)^verbscope_trace_up 1$`)
	lost := regexp.MustCompile(`(?m)^verbscope_trace_events_lost_total 0$`)
	var body string
	// Loading the 7 QP programs takes up to 40 s on a loaded TCG host;
	// 3 minutes is over 3x that.
	labkit.WaitFor(t, labkit.Attach, "verbscope_trace_up 1", func() bool {
		body = scrapeMetrics(addr)
		return up.MatchString(body)
	})
	if !lost.MatchString(body) {
		t.Errorf("no verbscope_trace_events_lost_total 0 beside trace_up 1:\n%s\nexporter:\n%s", body, x.Output())
	}
}
