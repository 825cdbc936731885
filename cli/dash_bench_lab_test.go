//go:build lab

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/dash"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

func TestMain(m *testing.M) {
	qpholder.Main()
	os.Exit(m.Run())
}

// benchTmux runs cmd in a tmux session "vsb" of w×h.
func benchTmux(b *testing.B, w, h int, cmd string) {
	c := exec.Command("tmux", "new-session", "-d", "-s", "vsb", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), cmd)
	c.Env = append(os.Environ(), "TERM=xterm-256color")
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("tmux: %v\n%s", err, out)
	}
	// The next benchmark starts only once this dashboard has exited: its
	// exit detaches trace's programs, which under TCG takes seconds, and a
	// dashboard still tracing and reading beside the next benchmark's
	// 10,000 QP creations would be measured in its place (dashProc).
	b.Cleanup(func() {
		exec.Command("tmux", "kill-session", "-t", "vsb").Run()
		labkit.WaitFor(b, labkit.Release, "the dashboard to exit", func() bool { return findDash() == "" })
	})
}

func capture(name string) string {
	out, _ := exec.Command("tmux", "capture-pane", "-p", "-t", name).Output()
	return string(out)
}

func waitScreen(b *testing.B, name, want string, d time.Duration) {
	deadline := time.Now().Add(d)
	for !strings.Contains(capture(name), want) {
		if time.Now().After(deadline) {
			b.Fatalf("the dashboard never showed %q:\n%s", want, capture(name))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// dashProc finds the dashboard process.
func dashProc(b *testing.B) string {
	p := findDash()
	if p == "" {
		b.Fatal("no dashboard process")
	}
	return p
}

// findDash is the /proc folder of a running dashboard, or "".
func findDash() string {
	stats, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, st := range stats {
		c, _ := os.ReadFile(st)
		if strings.HasPrefix(string(c), "verbscope\x00dash") || strings.Contains(string(c), "/verbscope\x00dash") {
			return filepath.Dir(st)
		}
	}
	return ""
}

func statusKB(b *testing.B, proc, field string) float64 {
	data, _ := os.ReadFile(filepath.Join(proc, "status"))
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			v, _ := strconv.ParseFloat(strings.Fields(rest)[0], 64)
			return v
		}
	}
	b.Fatalf("no %s in %s/status", field, proc)
	return 0
}

// cpuTicks is the process's user+system time in clock ticks.
func cpuTicks(proc string) float64 {
	data, _ := os.ReadFile(filepath.Join(proc, "stat"))
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	u, _ := strconv.ParseFloat(f[11], 64)
	k, _ := strconv.ParseFloat(f[12], 64)
	return u + k
}

// BenchmarkDashboardIdle: the dashboard on an idle rxe0, 1 s refresh,
// nothing changing, side by side with htop at the same refresh (-d 10)
// in the same guest and terminal size, the peer people leave open: the
// share of one CPU each uses over 30 s (cpu-%, htop-cpu-%), how often
// each is woken (wakeups/s, htop-wakeups/s: context switches of all its
// threads), and the dashboard's memory (rss-MB).
func BenchmarkDashboardIdle(b *testing.B) {
	benchTmux(b, 160, 48, "verbscope dash --interval 1s")
	waitScreen(b, "vsb", "1 ports", 2*time.Minute) // the overview, the first view
	proc := dashProc(b)
	// Idle is after the start: the trace's programs loaded (seconds
	// under emulation) and the first readings settled.
	waitScreen(b, "vsb", "programs attached", 2*time.Minute)
	c := exec.Command("tmux", "new-session", "-d", "-s", "vsh", "-x", "160", "-y", "48", "htop -d 10")
	c.Env = append(os.Environ(), "TERM=xterm-256color")
	if out, err := c.CombinedOutput(); err != nil {
		b.Fatalf("tmux htop: %v\n%s", err, out)
	}
	b.Cleanup(func() { exec.Command("tmux", "kill-session", "-t", "vsh").Run() })
	waitScreen(b, "vsh", "Load average", time.Minute)
	htop := procOf(b, "htop")
	time.Sleep(3 * time.Second)
	b.ResetTimer()
	var pct, hpct, wake, hwake float64
	for range b.N {
		t0, c0, h0, w0, hw0 := time.Now(), cpuTicks(proc), cpuTicks(htop), wakeups(proc), wakeups(htop)
		time.Sleep(30 * time.Second)
		dt := time.Since(t0).Seconds()
		pct = (cpuTicks(proc) - c0) / 100 / dt * 100 // USER_HZ is 100
		hpct = (cpuTicks(htop) - h0) / 100 / dt * 100
		wake, hwake = (wakeups(proc)-w0)/dt, (wakeups(htop)-hw0)/dt
	}
	b.ReportMetric(pct, "cpu-%")
	b.ReportMetric(hpct, "htop-cpu-%")
	b.ReportMetric(wake, "wakeups/s")
	b.ReportMetric(hwake, "htop-wakeups/s")
	b.ReportMetric(statusKB(b, proc, "VmRSS")/1024, "rss-MB")
}

// procOf is the /proc folder of the process whose command is comm.
func procOf(b *testing.B, comm string) string {
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, f := range comms {
		if c, _ := os.ReadFile(f); strings.TrimSpace(string(c)) == comm {
			return filepath.Dir(f)
		}
	}
	b.Fatalf("no %s process", comm)
	return ""
}

// wakeups is how many times the process's threads were switched in:
// the voluntary and involuntary context switches of every thread
// (proc(5), /proc/PID/task/TID/status).
func wakeups(proc string) float64 {
	var n float64
	tasks, _ := filepath.Glob(filepath.Join(proc, "task", "*", "status"))
	for _, t := range tasks {
		data, _ := os.ReadFile(t)
		for _, l := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				v, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
				n += v
			} else if rest, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				v, _ := strconv.ParseFloat(strings.TrimSpace(rest), 64)
				n += v
			}
		}
	}
	return n
}

// BenchmarkDashboard10kQPs: 10,000 QPs of another process alive, the QP
// view at 200x60 refreshing every second: how long a key takes to show
// on the screen while refreshes run (key-ms, the median of b.N presses
// of '/' then esc), and the dashboard's memory (rss-MB, peak-rss-MB).
func BenchmarkDashboard10kQPs(b *testing.B) {
	_, stop := qpholder.Start(b, 10000)
	defer stop()
	benchTmux(b, 200, 60, "verbscope dash --view qp --interval 1s --no-shell")
	waitScreen(b, "vsb", "programs attached", 5*time.Minute)
	waitScreen(b, "vsb", "QPs [10001/10001]", 5*time.Minute)
	proc := dashProc(b)
	b.ResetTimer()
	var lat []float64
	for range b.N {
		t0 := time.Now()
		exec.Command("tmux", "send-keys", "-t", "vsb", "/").Run()
		waitScreen(b, "vsb", "enter keeps", time.Minute)
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		exec.Command("tmux", "send-keys", "-t", "vsb", "Escape").Run()
		time.Sleep(300 * time.Millisecond)
	}
	b.StopTimer()
	sort.Float64s(lat)
	b.ReportMetric(lat[len(lat)/2], "key-ms")
	b.ReportMetric(statusKB(b, proc, "VmRSS")/1024, "rss-MB")
	b.ReportMetric(statusKB(b, proc, "VmHWM")/1024, "peak-rss-MB")
}

// BenchmarkIdleFloor: what waking at the renderer's frame rate costs a
// Go process that does nothing else, in this guest (floor-cpu-%): Bubble
// Tea's renderer ticks at dash.FPS whether or not the screen changed, so
// the dashboard's idle share cannot go below it.
func BenchmarkIdleFloor(b *testing.B) {
	var pct float64
	for range b.N {
		t := time.NewTicker(time.Second / dash.FPS)
		c0, t0 := cpuTime(), time.Now()
		for time.Since(t0) < 20*time.Second {
			<-t.C
		}
		t.Stop()
		pct = (cpuTime() - c0).Seconds() / time.Since(t0).Seconds() * 100
	}
	b.ReportMetric(pct, "floor-cpu-%")
}

// cpuTime is this process's user and system time (getrusage(2)).
func cpuTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFirstFrame: how long after its start the dashboard shows its
// first frame (first-frame-s: the overview's boxes, before any data),
// the ports read from sysfs (ports-s) and the QPs from netlink (qps-s,
// the header's count), against htop's first frame in the same
// guest (htop-first-frame-s: its "Load average" line), each measured by
// reading the tmux screen every 20 ms from the moment the command is
// given to tmux.
func BenchmarkFirstFrame(b *testing.B) {
	firstScreen := func(cmd string, want ...string) []float64 {
		exec.Command("tmux", "kill-session", "-t", "vsf").Run()
		t0 := time.Now()
		c := exec.Command("tmux", "new-session", "-d", "-s", "vsf", "-x", "160", "-y", "48", cmd)
		c.Env = append(os.Environ(), "TERM=xterm-256color")
		if out, err := c.CombinedOutput(); err != nil {
			b.Fatalf("tmux: %v\n%s", err, out)
		}
		defer func() {
			exec.Command("tmux", "kill-session", "-t", "vsf").Run()
			labkit.WaitFor(b, labkit.Release, "the dashboard to exit", func() bool { return findDash() == "" })
		}()
		took := make([]float64, len(want))
		for i, w := range want {
			re := regexp.MustCompile(w)
			deadline := time.Now().Add(2 * time.Minute)
			for !re.MatchString(capture("vsf")) {
				if time.Now().After(deadline) {
					b.Fatalf("%s never showed %q:\n%s", cmd, w, capture("vsf"))
				}
				time.Sleep(20 * time.Millisecond)
			}
			took[i] = time.Since(t0).Seconds()
		}
		return took
	}
	var dash, htop []float64
	for range b.N {
		dash = firstScreen("verbscope dash --no-trace", "1 ports", `rxe0/1 +ACTIVE`, `QPs \d`)
		htop = firstScreen("htop -d 10", "Load average")
	}
	b.ReportMetric(dash[0], "first-frame-s")
	b.ReportMetric(dash[1], "ports-s")
	b.ReportMetric(dash[2], "qps-s")
	b.ReportMetric(htop[0], "htop-first-frame-s")
}
