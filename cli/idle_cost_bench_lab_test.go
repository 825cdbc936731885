//go:build lab

package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

// cpuShare is the share of one CPU each process in procs uses over d
// (user and system time, USER_HZ 100).
func cpuShare(procs []string, d time.Duration) []float64 {
	c0 := make([]float64, len(procs))
	for i, p := range procs {
		c0[i] = cpuTicks(p)
	}
	t0 := time.Now()
	time.Sleep(d)
	dt := time.Since(t0).Seconds()
	out := make([]float64, len(procs))
	for i, p := range procs {
		out[i] = (cpuTicks(p) - c0[i]) / 100 / dt * 100
	}
	return out
}

// pidDir is the /proc folder of pid.
func pidDir(pid int) string { return filepath.Join("/proc", strconv.Itoa(pid)) }

// BenchmarkIdleCost is issue 25's test of the readings' cost: the
// dashboard (overview, 1 s refresh, trace on: its readings built from
// trace's events, a whole dump every 30 s), the exporter and `verbscope
// record` (1 s readings, trace on) with 10 and with 10,000 idle RC QPs of
// another process, beside htop -d 10 (the same refresh) in the same
// terminal size: each one's share of a guest CPU over 40 s, which takes
// in one whole dump. Targets:
// the dashboard and the exporter at 10,000 at most 2x what they cost at
// 10 (dash-10k/10, export-10k/10), the dashboard at 10,000 at most
// htop's (dash/htop-10k); the recorder's share against the dashboard's
// (record/dash-10k: issue 21).
func BenchmarkIdleCost(b *testing.B) {
	const window = 40 * time.Second
	at := map[int][4]float64{} // dash, export, htop, record
	for range b.N {
		for _, n := range []int{10, 10000} {
			_, stop := qpholder.Start(b, n)
			exp := labkit.Start(b, "verbscope", "export", "--web.listen-address=127.0.0.1:19886", "--interval=1s")
			file := filepath.Join(b.TempDir(), "idle.vsrec")
			recd := labkit.Start(b, "verbscope", "record", "-o", file, "--interval", "1s")
			benchTmux(b, 160, 48, "verbscope dash --interval 1s --no-shell")
			waitScreen(b, "vsb", "programs attached", 5*time.Minute)
			waitScreen(b, "vsb", "traced · dump every 30s", 5*time.Minute)
			c := exec.Command("tmux", "new-session", "-d", "-s", "vsh", "-x", "160", "-y", "48", "htop -d 10")
			c.Env = append(os.Environ(), "TERM=xterm-256color")
			if out, err := c.CombinedOutput(); err != nil {
				b.Fatalf("tmux htop: %v\n%s", err, out)
			}
			waitScreen(b, "vsh", "Load average", time.Minute)
			// The exporter's trace loads beside the dashboard's: let
			// both settle, then measure.
			time.Sleep(10 * time.Second)
			s := cpuShare([]string{dashProc(b), pidDir(int(exp.PID())), procOf(b, "htop"), pidDir(int(recd.PID()))}, window)
			at[n] = [4]float64{s[0], s[1], s[2], s[3]}
			b.Logf("%d idle QPs: dashboard %.1f%%, exporter %.1f%%, recorder %.1f%%, htop %.1f%% of a CPU", n, s[0], s[1], s[3], s[2])
			recd.Kill()
			exec.Command("tmux", "kill-session", "-t", "vsh").Run()
			exec.Command("tmux", "kill-session", "-t", "vsb").Run()
			labkit.WaitFor(b, labkit.Release, "the dashboard to exit", func() bool { return findDash() == "" })
			exp.Kill()
			stop()
		}
	}
	d10, d10k := at[10], at[10000]
	b.ReportMetric(d10[0], "dash-cpu-%-10")
	b.ReportMetric(d10k[0], "dash-cpu-%-10k")
	b.ReportMetric(d10k[2], "htop-cpu-%-10k")
	b.ReportMetric(d10[1], "export-cpu-%-10")
	b.ReportMetric(d10k[1], "export-cpu-%-10k")
	b.ReportMetric(d10k[0]/d10[0], "dash-10k/10")
	b.ReportMetric(d10k[1]/d10[1], "export-10k/10")
	b.ReportMetric(d10k[0]/d10k[2], "dash/htop-10k")
	b.ReportMetric(d10k[3], "record-cpu-%-10k")
	b.ReportMetric(d10k[3]/d10k[0], "record/dash-10k")
}

// BenchmarkBurst1000: the dashboard's QP view (1 s refresh, trace on)
// while a helper creates 1,000 RC QPs and moves each to INIT: from the
// helper's last QP in INIT to the view's count showing all of them
// (show-ms, and in refreshes: show-refreshes), read from the tmux screen
// every 50 ms. Target: within one refresh.
func BenchmarkBurst1000(b *testing.B) {
	benchTmux(b, 200, 60, "verbscope dash --view qp --interval 1s --no-shell")
	waitScreen(b, "vsb", "programs attached", 5*time.Minute)
	waitScreen(b, "vsb", "traced · dump every 30s", 5*time.Minute)
	base := qpCount(b)
	var worst time.Duration
	for range b.N {
		_, stop := qpholder.Start(b, 1000)
		t0 := time.Now()
		want := fmt.Sprintf("QPs [%d/%d]", base+1000, base+1000)
		waitScreen(b, "vsb", want, 5*time.Minute)
		worst = max(worst, time.Since(t0))
		stop()
		waitScreen(b, "vsb", fmt.Sprintf("QPs [%d/%d]", base, base), 5*time.Minute)
	}
	b.ReportMetric(float64(worst.Milliseconds()), "show-ms")
	b.ReportMetric(worst.Seconds(), "show-refreshes")
}

// qpCount is the QP view's count on the screen now.
func qpCount(b *testing.B) int {
	scr := capture("vsb")
	i := strings.Index(scr, "QPs [")
	if i < 0 {
		b.Fatalf("no QP count on the screen:\n%s", scr)
	}
	var shown, all int
	if _, err := fmt.Sscanf(scr[i:], "QPs [%d/%d]", &shown, &all); err != nil {
		b.Fatalf("the QP count on the screen: %v\n%s", err, scr)
	}
	return all
}
