package rec

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// BenchmarkSeekHour10kQPs jumps to readings anywhere in a one-hour
// recording of 10,000 QPs (3,600 readings a second apart, 100 QPs
// sending, a keyframe every DefaultKeyEvery): each jump a Player that
// has decoded nothing, as `t` in a replay makes, rebuilding the whole
// frame (objects, the Tracker's report, every QP's history). Making the
// file takes a few minutes; the target is under 100 ms a jump
// (ns/op, and worst-ms the slowest). The process's first frame, the one
// `dash --replay FILE --at TIME` opens on, is made before the jumps and
// reported apart (first-ms): it also grows the heap from nothing.
func BenchmarkSeekHour10kQPs(b *testing.B) {
	const readings = 3600
	ctx := context.Background()
	path := busyRecording(b, "hour.vsrec", readings, nil)
	r := openT(b, path)
	res, err := r.Readings(ctx, "res")
	if err != nil || len(res) != readings {
		b.Fatalf("%d readings: %v", len(res), err)
	}
	jump := func(i int) time.Duration {
		start := time.Now()
		q := &Player{r: r, res: res, cache: snapCache{r: r}, hist: histCache{r: r}}
		if f := q.frame(ctx, i); f.Err != nil || len(f.Snapshot.QPs) != benchQPs {
			b.Fatalf("reading %d: %v", i, f.Err)
		}
		return time.Since(start)
	}
	runtime.GC() // the making's garbage is not the jumps'
	first := jump(readings / 2)
	var worst time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		// Readings spread over the hour, each in another span than the
		// last: 37 minutes and 1,009 readings apart, late in a span, and
		// one in sixty onto a keyframe.
		i = (i + 1009) % readings
		worst = max(worst, jump(i))
	}
	b.ReportMetric(float64(worst.Microseconds())/1000, "worst-ms")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-ms")
}
