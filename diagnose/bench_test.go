package diagnose

import (
	"context"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// BenchmarkObserveIdle10kQPs is what the diagnosis adds to every
// reading of an idle host with 10,000 connected RC QPs (the dashboard's
// and the exporter's stage after the Tracker): with nothing retrying,
// failed or orphaned it compares the ports' counters and returns, no
// peer asked. Side by side with inspect's BenchmarkTrackIdle10kQPs,
// the Tracker's own cost of the same reading (docs/performance.md).
func BenchmarkObserveIdle10kQPs(b *testing.B) {
	qps := make([]inspect.QP, 10000)
	for i := range qps {
		qps[i] = rcQP("rxe0", uint32(17+i), uint32(10017+i), rdma.QPStateRTS, 100, 200)
	}
	p := &fakePeers{}
	d := New(Config{Peers: p, Driver: func(string) string { return "rxe" }})
	r := reading(0, 5, 5, qps...)
	d.Observe(context.Background(), r)
	b.ReportAllocs()
	for b.Loop() {
		r.Snapshot.Time = r.Snapshot.Time.Add(time.Second)
		if vs := d.Observe(context.Background(), r); vs != nil {
			b.Fatalf("verdicts on an idle host: %v", vs)
		}
	}
	if p.asked != 0 {
		b.Errorf("asked the peers %d times while idle", p.asked)
	}
}
