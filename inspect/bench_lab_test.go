//go:build lab

package inspect

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

func TestMain(m *testing.M) {
	qpholder.Main()
	os.Exit(m.Run())
}

// startHolder starts the other process, holding n QPs in INIT.
func startHolder(tb testing.TB, n int) (pid uint32, stop func()) { return qpholder.Start(tb, n) }

// procStatus reads a field of /proc/self/status in kB ("VmRSS", "VmHWM").
func procStatus(b *testing.B, field string) float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			v, _ := strconv.ParseFloat(f[0], 64)
			return v
		}
	}
	b.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// BenchmarkRefresh10kQPs is the inspector's refresh with 10,000 QPs alive
// in another process: one op is a full Snapshot (devices, ports, every
// object dump, port counters, counter modes, per-QP counters, summary,
// system settings) plus Tracker.Update (diff and history). Next to it the
// benchmark reports the wall time of `rdma -j resource show qp` for the
// same QPs (rdma-ms) and of this package's QP dump alone (qp-dump-ms),
// and this process's resident memory after the runs
// (rss-MB) and at its peak (peak-rss-MB).
func BenchmarkRefresh10kQPs(b *testing.B) {
	const n = 10000
	labkit.Env(b, "LAB_DEV")
	pid, stop := startHolder(b, n)
	defer stop()
	c := dial(b)
	tr := NewTracker(TrackerConfig{})

	// Check once that the snapshot sees them all.
	s, err := c.Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		b.Fatal(err)
	}
	// The kernel records the creating thread: the helper is a Go
	// program, so its QPs carry the ids of several of its threads.
	mine := 0
	for _, q := range s.QPs {
		if q.TGID == pid {
			mine++
		}
	}
	if mine != n {
		pids := map[uint32]int{}
		states := map[QPState]int{}
		for _, q := range s.QPs {
			pids[q.PID]++
			states[q.State]++
		}
		b.Fatalf("snapshot lists %d of the helper's %d QPs (%d QPs in all; by pid %v; by state %v; warnings %v)", mine, n, len(s.QPs), pids, states, s.Warnings)
	}
	tr.Update(s)

	// The QP dump alone, to set next to rdma's.
	var dump time.Duration
	const rdmaRuns = 3
	for i := 0; i < rdmaRuns; i++ {
		t0 := time.Now()
		if _, err := c.QPs(Query{}); err != nil {
			b.Fatal(err)
		}
		dump += time.Since(t0)
	}
	var rdma time.Duration
	for i := 0; i < rdmaRuns; i++ {
		cmd := exec.Command("rdma", "-j", "resource", "show", "qp")
		cmd.Stdout = io.Discard
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		rdma += time.Since(t0)
	}

	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := c.Snapshot(context.Background(), SnapshotOptions{})
		if err != nil {
			b.Fatal(err)
		}
		u := tr.Update(s)
		if len(u.Appeared)+len(u.Disappeared) != 0 {
			b.Fatalf("objects changed between refreshes: %d appeared, %d gone", len(u.Appeared), len(u.Disappeared))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(rdma.Microseconds())/1000/rdmaRuns, "rdma-ms")
	b.ReportMetric(float64(dump.Microseconds())/1000/rdmaRuns, "qp-dump-ms")
	b.ReportMetric(procStatus(b, "VmRSS")/1024, "rss-MB")
	b.ReportMetric(procStatus(b, "VmHWM")/1024, "peak-rss-MB")
	b.ReportMetric(float64(len(s.QPs)), "qps")
}
