package diagnose

import (
	"context"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// BenchmarkIdleReading10kQPs is an idle host's reading with 10,000
// connected RC QPs as the dashboard's and the exporter's pipeline takes
// it, side by side without the diagnosis (the Tracker alone) and with it
// (the Tracker, then the Diagnoser): with nothing retrying, failed or
// orphaned the diagnosis compares the ports' counters and returns, no
// peer asked (docs/performance.md).
func BenchmarkIdleReading10kQPs(b *testing.B) {
	qps := make([]inspect.QP, 10000)
	for i := range qps {
		qps[i] = rcQP("rxe0", uint32(17+i), uint32(10017+i), rdma.QPStateRTS, 100, 200)
	}
	for _, withDiagnosis := range []bool{false, true} {
		name := "without-diagnosis"
		if withDiagnosis {
			name = "with-diagnosis"
		}
		b.Run(name, func(b *testing.B) {
			p := &fakePeers{}
			d := New(Config{Peers: p, Driver: func(string) string { return "rxe" }})
			tr := inspect.NewTracker(inspect.TrackerConfig{})
			r := reading(0, 5, 5, qps...)
			r.Snapshot.MarkChanged(rdma.ResourceKinds()...) // as a Watcher's reading
			tr.Update(r.Snapshot)
			d.Observe(context.Background(), r)
			b.ReportAllocs()
			for b.Loop() {
				next := *r.Snapshot
				next.Time = next.Time.Add(time.Second)
				u := tr.Update(&next)
				if withDiagnosis {
					if vs := d.Observe(context.Background(), Reading{Snapshot: &next, Update: u, History: tr.Histories()}); vs != nil {
						b.Fatalf("verdicts on an idle host: %v", vs)
					}
				}
				r.Snapshot = &next
			}
			if p.asked != 0 {
				b.Errorf("asked the peers %d times while idle", p.asked)
			}
		})
	}
}
