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

// fullEvery is how many ticks pass between two readings of the GID
// tables and IRQs (port states and counters are read every tick): a
// GID table is up to 1,024 entries of three files each, and neither
// changes at a person's pace.
const fullEvery = 10

// memoryLimit is the dashboard's least soft heap limit, unless GOMEMLIMIT
// sets one. A viewer is left open for days, and its peaks (trace's BTF
// parsed at start, a 10,000-QP refresh) are far above what it keeps:
// with Go's defaults alone, 10,000 QPs shown left RSS at 78-82 MB in the
// lab (BenchmarkDashboard10kQPs), the heap grown to twice the peak and
// returned to the system slowly. The limit makes the collector and the
// scavenger hold it near what the data needs; memory costs the same
// natively as under emulation.
const memoryLimit = 40 << 20

// limitHeadroom is how far above the live heap the limit stays when the
// data needs more than memoryLimit: a limit at or under the live heap
// makes the collector run back to back (up to half the CPUs: a whole
// guest CPU at 10,000 idle QPs, BenchmarkIdleCost), a quarter above it
// collects once a quarter of the heap is new garbage.
const limitHeadroom = 4

// limitEvery is how often the limit follows the live heap.
const limitEvery = 5 * time.Second

// applyMemoryLimit sets the soft heap limit where the user set none, and
// keeps it a quarter above the live heap while that is above
// memoryLimit, until ctx ends.
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
