package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell/front"
)

// TestTraceField: the header's first line says nothing of trace without
// it, that counts are not yet exact while it loads or when it is off,
// and how many events it lost.
func TestTraceField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status *inspect.TraceStatus
		want   string
	}{
		{"untraced", nil, ""},
		{"loading", &inspect.TraceStatus{}, "trace loading: counts not yet exact"},
		{"off", &inspect.TraceStatus{Off: "trace: open: no BTF"}, "trace off: counts not exact"},
		{"up", &inspect.TraceStatus{Up: true}, "traced"},
		{"up, readings from trace", &inspect.TraceStatus{Up: true}, "traced · dump every 30s"},
		{"lost", &inspect.TraceStatus{Up: true, Lost: 12}, "trace: 12 events lost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", 160, 40, false)
			f := recordedFrames(t, "idle", "rc-init", "rc-rts")[2]
			f.Trace = tc.status
			if strings.HasPrefix(tc.name, "up, readings") {
				f.Reconcile = 30 * time.Second
			}
			m.Update(resMsg{m.resBuilder.build(f, front.State{})})
			first, _, _ := strings.Cut(screen(m), "\n")
			if tc.want == "" {
				if strings.Contains(first, "trace") {
					t.Errorf("first line speaks of trace: %q", first)
				}
				return
			}
			if !strings.HasSuffix(strings.TrimSpace(first), "· "+tc.want) {
				t.Errorf("first line %q does not end with %q", first, tc.want)
			}
		})
	}
}
