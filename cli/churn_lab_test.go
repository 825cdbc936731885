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

// churnFor is how long the other process churns QPs: thousands of QPs
// under TCG, and the suite's costliest half minute (the churn, the
// dashboard and the exporter both tracing it take both vCPUs), so not
// a minute.
const churnFor = 30 * time.Second

// TestUnderChurn: another process creates QPs, takes each to RTS and
// destroys it, as fast as it can for half a minute, while the dashboard (in
// tmux) and the exporter (scraped) both trace. The exporter first says
// trace is up (verbscope_trace_up 1) and lost nothing. The dashboard keeps
// answering (each key's round trip to the screen measured), its RSS
// stays under its target, and the exporter counts every modify the
// process made once, the ones trace says it lost aside.
func TestUnderChurn(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	// The default refresh of each: at 500 ms, race-built, the two
	// readers alone take most of the guest's second CPU.
	s, dash := startDash(t, "verbscope dash --no-shell; echo status=$?")
	addr := "127.0.0.1:19884"
	x := labkit.Start(t, "verbscope", "export", "--web.listen-address="+addr, "--interval=1s")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the exporter said:\n%s", x.Output())
		}
	})
	// Both load their trace programs: up to 40 s each on a loaded host.
	up := regexp.MustCompile(`(?m)^verbscope_trace_up 1$`)
	metrics := waitMetricsFor(t, labkit.Attach, addr, "the exporter's verbscope_trace_up 1", up.MatchString)
	labkit.WaitFor(t, labkit.Attach, "the dashboard's trace programs", func() bool { return bpfLinks(dash) == dashPrograms })
	s.waitLong("every 1s · traced")
	// The exporter says what trace lost: nothing yet on a quiet lab.
	counted0, lost0 := rcTransitions(t, metrics, dev), metricFloat(t, metrics, "verbscope_trace_events_lost_total")
	if lost0 != 0 {
		t.Errorf("verbscope_trace_events_lost_total %v beside trace_up 1 before the churn, want 0", lost0)
	}

	before := keyRoundTrip(t, s)
	rss0 := procStatusKB(t, dash, "VmRSS")

	dashProc, exportProc := fmt.Sprintf("/proc/%d", dash), fmt.Sprintf("/proc/%d", x.PID())
	start, dashCPU0, exportCPU0 := time.Now(), cpuTicks(dashProc), cpuTicks(exportProc)
	_, wait := qpholder.StartChurn(t, churnFor)
	var worst time.Duration
	var keys int
	rss := rss0
	for time.Since(start) < churnFor-5*time.Second {
		worst = max(worst, keyRoundTrip(t, s))
		keys += 2
		rss = max(rss, procStatusKB(t, dash, "VmRSS"))
		time.Sleep(time.Second)
	}
	qps, mods := wait()
	head, _, _ := strings.Cut(s.screen(), "\n") // what the dashboard's trace lost, if any
	took := time.Since(start).Seconds()
	dashCPU, exportCPU := (cpuTicks(dashProc)-dashCPU0)/took, (cpuTicks(exportProc)-exportCPU0)/took // USER_HZ is 100: %
	t.Logf("churn: %d QPs to RTS and destroyed in %v (%.0f QPs/s, %d modifies); the dashboard's first line: %s",
		qps, churnFor, float64(qps)/churnFor.Seconds(), mods, strings.TrimSpace(head))
	t.Logf("dashboard: a key shown after %v before the churn, after %v at worst of %d during it; %.0f%% of a CPU; RSS %.1f MB before, up to %.1f MB (%.1f MB of it anonymous at the end); the exporter: %.0f%% of a CPU",
		before.Round(time.Millisecond), worst.Round(time.Millisecond), keys, dashCPU, rss0/1024, rss/1024, procStatusKB(t, dash, "RssAnon")/1024, exportCPU)
	if worst > labkit.Answer {
		t.Errorf("a key took %v to show on the dashboard's screen during the churn, over the %v limit", worst, labkit.Answer)
	}
	// Memory that grows with the churn is a leak: the RSS stays under
	// twice what it was before (1.3x seen: 39 MB before, 52 MB at
	// worst). The 50 MB target of docs/performance.md is a figure the
	// log above reports, not a limit with headroom.
	if rss > 2*rss0 {
		t.Errorf("the dashboard's RSS went from %.1f MB before the churn to %.1f MB during it: over twice, memory that grows with the churn", rss0/1024, rss/1024)
	}

	// The last modifies reach the exporter within a reading or two.
	var counted, lost float64
	lostRE := regexp.MustCompile(`(?m)^verbscope_trace_events_lost_total (\S+)$`)
	settled := func(m string) bool {
		l := lostRE.FindStringSubmatch(m)
		if l == nil {
			return false // the netlink collector is late, its series left out
		}
		lost, _ = strconv.ParseFloat(l[1], 64)
		counted, lost = rcTransitions(t, m, dev)-counted0, lost-lost0
		return counted >= float64(mods)-lost
	}
	waitMetricsFor(t, labkit.Settle, addr, fmt.Sprintf("the exporter to count the %d modifies", mods), settled)
	time.Sleep(2 * time.Second) // a count past them would show now
	waitMetricsFor(t, labkit.Settle, addr, "a scrape with the counts", settled)
	t.Logf("exporter: %.0f transitions counted of %d modifies, %.0f events lost", counted, mods, lost)
	if counted > float64(mods) || counted < float64(mods)-lost {
		t.Errorf("the exporter counted %.0f transitions of rxe0's RC QPs for %d modifies (%.0f events lost): want %d, less at most the lost",
			counted, mods, lost, mods)
	}

	s.key("q")
	s.waitLong("status=0")
}

// keyRoundTrip presses '?' (the help opens) and Escape (it closes) and
// returns the longer time one took to show on the screen.
func keyRoundTrip(t *testing.T, s *tmuxSession) time.Duration {
	t.Helper()
	var worst time.Duration
	for _, k := range []struct {
		key  string
		open bool
	}{{"?", true}, {"Escape", false}} {
		t0 := time.Now()
		s.keys(k.key)
		// Every 250 ms: each look starts a tmux client, which takes the
		// guest's CPU from the dashboard it measures.
		for strings.Contains(s.screen(), "key closes)") != k.open {
			if time.Since(t0) > labkit.Answer {
				t.Fatalf("the dashboard did not answer %s within %v:\n%s", k.key, labkit.Answer, s.screen())
			}
			time.Sleep(250 * time.Millisecond)
		}
		worst = max(worst, time.Since(t0))
	}
	return worst
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
