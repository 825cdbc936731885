//go:build lab

package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

// TestUnderFaults runs the dashboard (in tmux) and the exporter (scraped)
// through what a lab host goes through: rxe0 removed and added back ten
// times (neither pins it: rxe's removal waits, uninterruptibly, for every
// open uverbs file), its port down and up, a process holding QPs killed
// while another still holds its files. Each fault shows and clears in
// both, neither grows, and both still answer at the end.
func TestUnderFaults(t *testing.T) {
	labkit.Clean(t)
	dev, netdev := labkit.Env(t, "LAB_DEV"), labkit.Env(t, "LAB_NETDEV")
	gidFile := fmt.Sprintf("/sys/class/infiniband/%s/ports/1/gids/%s", dev, labkit.Env(t, "LAB_GID_INDEX"))
	gid := readTrim(t, gidFile)
	// The tests after this one need rxe0 back as it was, GID included.
	t.Cleanup(func() {
		if _, err := os.Stat("/sys/class/infiniband/" + dev); err != nil {
			exec.Command("rdma", "link", "add", dev, "type", "rxe", "netdev", netdev).Run()
		}
		exec.Command("ip", "link", "set", netdev, "up").Run()
		labkit.WaitFor(t, labkit.Step, dev+"'s GID back at "+gidFile, func() bool {
			b, _ := os.ReadFile(gidFile)
			return strings.TrimSpace(string(b)) == gid
		})
	})

	// Neither traces (other tests cover trace; its loading is a minute of
	// the guest's CPUs under TCG).
	s, dash := startDash(t, "verbscope dash --view qp --no-trace --interval 500ms; echo status=$?")
	addr := "127.0.0.1:19883"
	x := labkit.Start(t, "verbscope", "export", "--no-trace", "--web.listen-address="+addr, "--interval=500ms")
	devInfo := regexp.MustCompile(`(?m)^verbscope_device_info\{[^}]*device="` + dev + `"`)
	anyOfDev := regexp.MustCompile(`(?m)^verbscope_\w+\{[^}]*device="` + dev + `"`)
	// Starting a 25 MB binary over 9p under TCG: Attach, the longest
	// start-up limit.
	var metrics string
	labkit.WaitFor(t, labkit.Attach, "the exporter's first reading of "+dev, func() bool {
		metrics = scrapeMetrics(addr)
		return devInfo.MatchString(metrics)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the exporter said:\n%s", x.Output())
		}
	})

	t.Run("device removed and added back", func(t *testing.T) {
		var threads0, goroutines0 int
		var rss0 float64
		for i := 1; i <= 10; i++ {
			removeDevice(t, dev)
			s.waitLong("no RDMA devices in /sys/class/infiniband")
			// Every series of the device goes with it, its
			// resource_usage_ratio too (its limits were asked at start).
			waitMetrics(t, addr, "every series of "+dev+" to go", func(m string) bool { return !anyOfDev.MatchString(m) })
			system(t, "rdma", "link", "add", dev, "type", "rxe", "netdev", netdev)
			s.waitRE(dev + ` 1:ACTIVE`)
			// The first reading of the device back reads its GID table
			// (1,024 files, seconds under TCG); each reading lists the
			// devices, so it is the next one.
			metrics = waitMetrics(t, addr, "the exporter's series of "+dev+" back", devInfo.MatchString)
			if i == 1 {
				threads0, goroutines0, rss0 = procThreads(t, dash), metricInt(t, metrics, "go_goroutines"), metricFloat(t, metrics, "process_resident_memory_bytes")
			}
		}
		// Slack for what a reading has in flight; a goroutine or a
		// thread kept per cycle would be 9 more.
		if n := procThreads(t, dash); n > threads0+4 {
			t.Errorf("the dashboard has %d threads after ten removals, %d after the first", n, threads0)
		}
		if n := metricInt(t, metrics, "go_goroutines"); n > goroutines0+4 {
			t.Errorf("the exporter has %d goroutines after ten removals, %d after the first", n, goroutines0)
		}
		if rss := metricFloat(t, metrics, "process_resident_memory_bytes"); rss > 2*rss0 {
			t.Errorf("the exporter's RSS went from %.0f to %.0f bytes over ten removals", rss0, rss)
		}
	})

	t.Run("port down and up", func(t *testing.T) {
		alert := "port " + dev + "/1 DOWN"
		portDown := regexp.MustCompile(`(?m)^verbscope_port_state\{[^}]*device="` + dev + `"[^}]*\} 1$`)
		system(t, "ip", "link", "set", netdev, "down")
		s.waitLong(alert)
		waitMetrics(t, addr, "the exporter's port state DOWN", portDown.MatchString)
		system(t, "ip", "link", "set", netdev, "up")
		s.waitRE(dev + ` 1:ACTIVE`)
		waitScreenLacks(t, s, alert)
		waitMetrics(t, addr, "the exporter's port state back", func(m string) bool { return !portDown.MatchString(m) })
	})

	t.Run("holder killed, its files kept", func(t *testing.T) {
		holder, _, stop := qpholder.StartKept(t, 2)
		defer stop()
		dead := regexp.MustCompile(`(?m)^verbscope_objects_of_dead_processes\{[^}]*device="` + dev + `"[^}]*kind="qp"[^}]*\} 2$`)
		if err := syscall.Kill(int(holder), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		s.waitLong("of dead processes")
		waitMetrics(t, addr, "the exporter's count of a dead process's QPs", dead.MatchString)
		stop() // the keeper: the last reference to the files goes
		waitScreenLacks(t, s, "of dead processes")
		waitMetrics(t, addr, "the dead process's QPs to go", func(m string) bool { return !dead.MatchString(m) })
	})

	// Both still answer.
	s.key("?")
	s.waitLong("key closes)")
	s.key("Escape")
	waitScreenLacks(t, s, "key closes)")
	s.key("q")
	s.waitLong("status=0")
	waitMetrics(t, addr, "a scrape after the faults", devInfo.MatchString)
}

// removeDevice deletes dev and fails the test, naming who holds it, if
// the deletion does not end: rxe has no disassociate_ucontext, so the
// kernel waits for every open uverbs file, uninterruptibly.
func removeDevice(t *testing.T, dev string) {
	t.Helper()
	done := make(chan error, 1)
	cmd := exec.Command("rdma", "link", "delete", dev)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("rdma link delete %s: %v\n%s", dev, err, out.String())
		}
	case <-time.After(labkit.Step):
		t.Fatalf("rdma link delete %s still waits after %v: the device is pinned by %s", dev, labkit.Step, uverbsHolders())
	}
}

// uverbsHolders names the processes with a uverbs file open.
func uverbsHolders() string {
	var who []string
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && strings.HasPrefix(target, "/dev/infiniband/uverbs") {
			pid := strings.Split(fd, "/")[2]
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			who = append(who, pid+" ("+strings.TrimSpace(string(comm))+")")
		}
	}
	if len(who) == 0 {
		return "no process (a uverbs file held by the kernel?)"
	}
	return strings.Join(who, ", ")
}

// waitMetrics scrapes addr until ok holds and returns that scrape.
func waitMetrics(t *testing.T, addr, what string, ok func(string) bool) string {
	t.Helper()
	return waitMetricsFor(t, labkit.Step, addr, what, ok)
}

// waitMetricsFor is waitMetrics with a limit of its own. It scrapes
// every 250 ms, not as fast as labkit.WaitFor looks: each scrape takes
// the exporter's CPU from the readings the test waits for.
func waitMetricsFor(t *testing.T, limit time.Duration, addr, what string, ok func(string) bool) string {
	t.Helper()
	start := time.Now()
	for {
		body := scrapeMetrics(addr)
		if ok(body) {
			labkit.NoteWait(t, what, time.Since(start), limit)
			return body
		}
		if time.Since(start) > limit {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// scrapeMetrics is one scrape of the exporter at addr, or "" if it did
// not answer.
func scrapeMetrics(addr string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/metrics", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func metricFloat(t *testing.T, body, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in the scrape:\n%s", name, body)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

func metricInt(t *testing.T, body, name string) int { return int(metricFloat(t, body, name)) }

// procThreads is the number of threads of process pid.
func procThreads(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^Threads:\s+(\d+)$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no Threads in /proc/%d/status", pid)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

func readTrim(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func system(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
