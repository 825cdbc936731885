//go:build lab

package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

// churnFor is how long the other process churns QPs.
const churnFor = time.Minute

// TestUnderChurn: another process creates QPs, takes each to RTS and
// destroys it, as fast as it can for a minute, while the dashboard (in
// tmux) and the exporter (scraped) both trace. The dashboard keeps
// answering (each key's round trip to the screen measured), its RSS
// stays under its target, and the exporter counts every modify the
// process made once, the ones trace says it lost aside.
func TestUnderChurn(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	s, dash := startDash(t, "verbscope dash --interval 500ms --no-shell; echo status=$?")
	addr := "127.0.0.1:19884"
	x := labkit.Start(t, "verbscope", "export", "--web.listen-address="+addr, "--interval=500ms")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the exporter said:\n%s", x.Output())
		}
	})
	// Both load the 7 QP programs: up to 40 s each on a loaded host.
	labkit.WaitFor(t, labkit.Attach, "the dashboard's 7 trace programs", func() bool { return bpfLinks(dash) == 7 })
	up := regexp.MustCompile(`(?m)^verbscope_trace_up 1$`)
	metrics := waitMetricsFor(t, labkit.Attach, addr, "the exporter's verbscope_trace_up 1", up.MatchString)
	s.waitLong("every 500ms · traced")
	counted0, lost0 := rcTransitions(t, metrics, dev), metricFloat(t, metrics, "verbscope_trace_events_lost_total")

	start := time.Now()
	_, wait := qpholder.StartChurn(t, churnFor)
	var worst time.Duration
	var keys int
	var rss, peak float64
	for time.Since(start) < churnFor-5*time.Second {
		// '?' opens the help, Escape closes it: each shown on the
		// screen is a key's round trip through the dashboard.
		for _, k := range []struct{ key, shows string }{{"?", "key closes)"}, {"Escape", ""}} {
			t0 := time.Now()
			s.keys(k.key)
			labkit.WaitFor(t, labkit.Screen, "the dashboard to answer "+k.key, func() bool {
				return strings.Contains(s.screen(), "key closes)") == (k.shows != "")
			})
			worst = max(worst, time.Since(t0))
			keys++
		}
		rss = max(rss, procStatusKB(t, dash, "VmRSS"))
		time.Sleep(2 * time.Second)
	}
	qps, mods := wait()
	peak = procStatusKB(t, dash, "VmHWM")
	t.Logf("churn: %d QPs to RTS and destroyed in %v (%.0f QPs/s, %d modifies); dashboard: %d keys, the slowest shown after %v; RSS up to %.1f MB, peak %.1f MB",
		qps, churnFor, float64(qps)/churnFor.Seconds(), mods, keys, worst.Round(time.Millisecond), rss/1024, peak/1024)

	// The last modifies reach the exporter within a reading or two.
	var counted, lost float64
	settled := func(m string) bool {
		counted, lost = rcTransitions(t, m, dev)-counted0, metricFloat(t, m, "verbscope_trace_events_lost_total")-lost0
		return counted >= float64(mods)-lost
	}
	metrics = waitMetrics(t, addr, fmt.Sprintf("the exporter to count the %d modifies", mods), settled)
	time.Sleep(2 * time.Second) // a count past them would show now
	settled(scrapeMetrics(addr))
	t.Logf("exporter: %.0f transitions counted of %d modifies, %.0f events lost", counted, mods, lost)
	if counted > float64(mods) || counted < float64(mods)-lost {
		t.Errorf("the exporter counted %.0f transitions of rxe0's RC QPs for %d modifies (%.0f events lost): want %d, less at most the lost",
			counted, mods, lost, mods)
	}

	s.key("q")
	s.waitLong("status=0")
}

// rcTransitions sums verbscope_qp_transitions_total of dev's RC QPs on
// port 1, over the states entered.
func rcTransitions(t *testing.T, metrics, dev string) float64 {
	t.Helper()
	re := regexp.MustCompile(`(?m)^verbscope_qp_transitions_total\{device="` + dev + `",port="1",to_state="\w+",type="RC"\} (\S+)$`)
	var sum float64
	for _, m := range re.FindAllStringSubmatch(metrics, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		sum += v
	}
	return sum
}

// procStatusKB is a field of /proc/PID/status in kB (VmRSS, VmHWM).
func procStatusKB(t *testing.T, pid int, field string) float64 {
	t.Helper()
	b := readTrim(t, fmt.Sprintf("/proc/%d/status", pid))
	m := regexp.MustCompile(`(?m)^` + field + `:\s+(\d+) kB$`).FindStringSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}
