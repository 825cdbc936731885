package dash

import (
	"context"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The dashboard's runtime policy, in one place. Everything else is Go's
// default (GOMAXPROCS, GOGC).

// FPS is the most frames a second the dashboard draws. Bubble Tea's
// renderer wakes at this rate even when nothing changed; 30 keeps a key's
// echo within a frame a person does not notice and halves the idle
// wake-ups of the default 60.
const FPS = 30

// memoryLimit is the dashboard's least soft heap limit, unless GOMEMLIMIT
// sets one. A viewer is left open for days, and its peaks (trace's BTF
// parsed at start, a 10,000-QP refresh) are far above what it keeps:
// with Go's defaults alone, 10,000 QPs shown left RSS far above the
// target (BenchmarkDashboard10kQPs measures it; the figures are in
// docs/performance.md), the heap grown to twice the peak and returned
// to the system slowly. The limit makes the collector and the
// scavenger hold it near what the data needs; memory costs the same
// natively as under emulation.
const memoryLimit = 40 << 20

// limitHeadroom is how far above the live heap the limit stays when the
// data needs more than memoryLimit, as a divisor of the live heap: 1,
// the limit at twice the live heap, where Go's own pacing (GOGC=100)
// collects anyway. A limit closer to the live heap collects as often as
// the headroom is small, and each collection scans the whole live
// heap: at a quarter above it, 10,000 idle QPs kept the collector
// running most of the time (BenchmarkIdleCost with a CPU profile:
// docs/performance.md), and a limit at or under the live heap
// runs it back to back. The limit trims the peaks (a whole dump's
// objects beside the last one's) back, not the steady state.
const limitHeadroom = 1

// limitEvery is how often the limit follows the live heap.
const limitEvery = 5 * time.Second

// applyMemoryLimit sets the soft heap limit where the user set none, and
// keeps it at twice the live heap while that is above half memoryLimit,
// until ctx ends.
func applyMemoryLimit(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(memoryLimit)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	go func() {
		t := time.NewTicker(limitEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() == metrics.KindUint64 {
				debug.SetMemoryLimit(limitFor(sample[0].Value.Uint64()))
			}
		}
	}()
}

// limitFor is the soft heap limit for a live heap of live bytes.
func limitFor(live uint64) int64 {
	return max(memoryLimit, int64(live+live/limitHeadroom))
}
