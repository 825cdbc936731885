package rec

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// BenchmarkSeekHour10kQPs jumps to readings anywhere in a one-hour
// recording of 10,000 QPs (3,600 readings a second apart, 100 QPs
// sending, a keyframe every DefaultKeyEvery): each jump a Player that
// has decoded nothing, as `dash --replay FILE --at TIME` or `t` makes,
// rebuilding the whole frame (objects, the Tracker's report, every
// QP's history). Making the file takes a few minutes; the issue's
// target is under 100 ms a jump (ns/op, and worst-ms the slowest).
func BenchmarkSeekHour10kQPs(b *testing.B) {
	const qps, busy, readings = 10000, 100, 3600
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "hour.vsrec")
	w, err := Create(ctx, path, Host{}, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	base := make([]inspect.QP, qps)
	for i := range base {
		base[i] = qp(uint32(100+i), 7000, "idle", rdma.QPStateRTS, 0, 0)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	for r := range readings {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(r) * time.Second), QPs: append([]inspect.QP(nil), base...)}
		for i := range busy {
			s.QPs[i].SQPSN, s.QPs[i].RQPSN = uint32(r*10), uint32(r*10)
		}
		if err := w.Frame(ctx, inspect.Frame{Seq: uint64(r + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	r := openT(b, path)
	res, err := r.Readings(ctx, "res")
	if err != nil || len(res) != readings {
		b.Fatalf("%d readings: %v", len(res), err)
	}
	var worst time.Duration
	i := 0
	runtime.GC() // the making's garbage is not the jumps'
	b.ResetTimer()
	for b.Loop() {
		// Readings spread over the hour, each in another span than the
		// last: 37 minutes and 1,009 readings apart, late in a span.
		i = (i + 1009) % readings
		start := time.Now()
		q := &Player{r: r, res: res, cache: snapCache{r: r}, hist: histCache{r: r}}
		if f := q.frame(ctx, i); f.Err != nil || len(f.Snapshot.QPs) != qps {
			b.Fatalf("reading %d: %v", i, f.Err)
		}
		worst = max(worst, time.Since(start))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
}
