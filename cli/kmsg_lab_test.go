//go:build lab

package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestKernelLogCounted: rxe writes "infiniband rxe0: set down" and "set
// active" (dev_info in rxe_net.c) when its netdev goes down and up; the
// exporter counts them under driver rdma_rxe, level info, as dmesg shows
// them, and the dashboard's events view shows the new "set down" line.
func TestKernelLogCounted(t *testing.T) {
	labkit.Clean(t)
	start := time.Now()
	netdev, dev := labkit.Env(t, "LAB_NETDEV"), labkit.Env(t, "LAB_DEV")
	addr := "127.0.0.1:19885"
	// The exporter counts the ring's old lines as it reads them, so a
	// count read as soon as the series shows can be partway through
	// (what the lab said adding rxe0: a count read mid-update, and
	// every count after it off by the rest). A mark written to the ring
	// at debug level, counted in a series of its own, says when the
	// exporter has read up to it: the log is read in order, and the
	// marks are the only rdma_rxe debug lines (rxe's pr_debug is off).
	mark, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mark.WriteString("<7>rdma_rxe: TestKernelLogCounted: the exporter has read the ring up to here\n"); err != nil {
		t.Fatalf("writing a mark to /dev/kmsg: %v", err)
	}
	mark.Close()
	marks := float64(strings.Count(dmesg(t), "TestKernelLogCounted: the exporter has read the ring up to here"))
	labkit.Start(t, "verbscope", "export", "--no-trace", "--web.listen-address="+addr, "--interval=1s")
	series := `verbscope_kernel_log_messages_total{driver="rdma_rxe",level="info"}`
	markSeries := `verbscope_kernel_log_messages_total{driver="rdma_rxe",level="debug"}`
	valueOf := func(series, body string) float64 {
		m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(body)
		if m == nil {
			return -1
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	value := func(body string) float64 { return valueOf(series, body) }
	// The ring holds what rxe said when the lab added rxe0, all of it
	// counted once the mark is.
	before0 := value(waitMetricsFor(t, labkit.Step, addr, "the exporter to read the kernel log up to the test's mark", func(b string) bool {
		return valueOf(markSeries, b) >= marks && value(b) >= 0
	}))
	setDown := regexp.MustCompile(`infiniband ` + dev + `: set (down|active)`)
	lines0 := len(setDown.FindAllString(dmesg(t), -1))
	// The dashboard's events view shows the ring's rxe lines once it
	// reads the log.
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	dash := newTmux(t)
	dash.line("verbscope dash --no-trace --no-shell --interval 1s --view events")
	dash.waitRE(`kernel +\S+ +\[rdma_rxe\]`)
	if s := dash.screen(); strings.Contains(s, "verbs>") || strings.Contains(s, "shell (tab") {
		t.Errorf("dash --no-shell (rewinding, by default) draws a shell pane:\n%s", s)
	}
	before := time.Now()

	link(t, netdev, "down")
	t.Cleanup(func() { link(t, netdev, "up") })
	waitMetricsFor(t, labkit.Step, addr, series+" counting set down", func(b string) bool { return value(b) >= before0+1 })
	link(t, netdev, "up")
	waitMetricsFor(t, labkit.Step, addr, series+" counting set active", func(b string) bool { return value(b) >= before0+2 })
	labkit.WaitFor(t, labkit.Step, dev+" port 1 ACTIVE again", func() bool {
		b, _ := os.ReadFile("/sys/class/infiniband/" + dev + "/ports/1/state")
		return strings.Contains(string(b), "ACTIVE")
	})
	// rxe may say "set active" twice as the link comes up (the netdev's
	// up, then its carrier), the second after the count above: the
	// count must come to what dmesg shows, not stop at two.
	var got, want float64
	waitMetricsFor(t, labkit.Step, addr, series+" counting every new set down/active line", func(b string) bool {
		got, want = value(b)-before0, float64(len(setDown.FindAllString(dmesg(t), -1))-lines0)
		return got == want
	})
	if want < 2 {
		t.Errorf("counted %v new rdma_rxe info lines; dmesg shows %v new \"set down/active\" lines, want at least the down and the up", got, want)
	}
	// The line the dashboard shows is the new one: its time (the
	// kernel's, on the wall clock) is not before the link went down,
	// give or take the second it is printed to.
	row := regexp.MustCompile(`(\d\d:\d\d:\d\d) +kernel +` + dev + ` +\[rdma_rxe\] +info: infiniband ` + dev + `: set down`)
	since := before.Add(-time.Second).Format("15:04:05")
	// A timeout says what the view showed instead (one fresh clone's
	// make test, beside other VMs, waited the whole limit).
	var last string
	defer func() {
		if t.Failed() {
			t.Logf("the events view when the wait ended:\n%s", last)
		}
	}()
	labkit.WaitFor(t, labkit.Screen, "the events view to show rxe's new set down line", func() bool {
		last = dash.screen()
		for _, m := range row.FindAllStringSubmatch(last, -1) {
			if m[1] >= since {
				t.Logf("the link went down at %s; the events view shows %q", before.Format("15:04:05.000"), m[0])
				return true
			}
		}
		return false
	})
	t.Logf("TestKernelLogCounted took %v", time.Since(start).Round(time.Second))
}

func dmesg(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("dmesg").Output()
	if err != nil {
		t.Fatalf("dmesg: %v", err)
	}
	return string(out)
}

func link(t *testing.T, netdev, state string) {
	t.Helper()
	if out, err := exec.Command("ip", "link", "set", "dev", netdev, state).CombinedOutput(); err != nil {
		t.Fatalf("ip link set %s %s: %v\n%s", netdev, state, err, out)
	}
}
