//go:build lab

package export

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// BenchmarkScrapeLive10kQPs: one scrape of the exporter's collector on the
// lab's rxe0 with 10,000 RC QPs alive (this process's, in INIT), after a
// real netlink snapshot through the Tracker: the time per scrape, the
// series it has and the process's RSS with the QPs held.
func BenchmarkScrapeLive10kQPs(b *testing.B) {
	// The testing package runs the function once per b.N it tries; the
	// QPs are made once and held until the process ends.
	liveQPs.once.Do(func() { liveQPs.c, liveQPs.err = liveCollector(labkit.Env(b, "LAB_DEV"), 10000) })
	if liveQPs.err != nil {
		b.Fatal(liveQPs.err)
	}
	c := liveQPs.c
	benchGather(b, c)
	series := gatherCount(b, c)
	if series >= 500 {
		b.Errorf("%d series with 10,000 QPs: want under 500", series)
	}
	b.ReportMetric(float64(series), "series")
	b.ReportMetric(rssMiB(b), "MiB-RSS")
}

var liveQPs struct {
	once sync.Once
	c    *Collector
	err  error
}

// liveCollector creates n RC QPs in INIT on dev, kept open for the rest
// of the process, and returns a Collector fed with a real snapshot of
// them through the Tracker and a real sysfs reading.
func liveCollector(dev string, n int) (*Collector, error) {
	vctx, err := verbs.Open(dev)
	if err != nil {
		return nil, err
	}
	pd, err := vctx.AllocPD()
	if err != nil {
		return nil, err
	}
	cq, err := vctx.CreateCQ(16, nil, 0)
	if err != nil {
		return nil, err
	}
	init := verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}}
	for i := 0; i < n; i++ {
		qp, err := pd.CreateQP(init)
		if err == nil {
			err = qp.Modify(&verbs.QPAttr{State: rdma.QPStateInit, Port: 1}, rdma.AttrState|rdma.AttrPKeyIndex|rdma.AttrPort|rdma.AttrAccessFlags)
		}
		if err != nil {
			return nil, fmt.Errorf("QP %d of %d: %w", i+1, n, err)
		}
	}
	conn, err := inspect.Dial()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	s, err := conn.Snapshot(context.Background(), inspect.SnapshotOptions{})
	if err != nil {
		return nil, err
	}
	if len(s.QPs) < n {
		return nil, fmt.Errorf("the snapshot has %d QPs, want at least %d", len(s.QPs), n)
	}
	fs, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return nil, err
	}
	c := NewCollector(Options{})
	c.observe(inspect.Frame{Snapshot: s, Update: inspect.NewTracker(inspect.TrackerConfig{}).Update(s)})
	c.observeSysfs(readSysfs(fs))
	return c, nil
}

// rssMiB is this process's VmRSS (proc(5)).
func rssMiB(b *testing.B) float64 {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(st), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	b.Fatal("no VmRSS in /proc/self/status")
	return 0
}
