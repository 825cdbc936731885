package dash

import (
	"os"
	"runtime/debug"
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

// memoryLimit is the dashboard's soft heap limit, unless GOMEMLIMIT sets
// one. A viewer is left open for days, and its peaks (trace's BTF parsed
// at start, a 10,000-QP refresh) are far above what it keeps: with Go's
// defaults alone, 10,000 QPs shown left RSS at 78-82 MB in the lab
// (BenchmarkDashboard10kQPs), the heap grown to twice the peak and
// returned to the system slowly. The limit makes the collector and the
// scavenger hold it near what the data needs; memory costs the same
// natively as under emulation.
const memoryLimit = 40 << 20

// applyMemoryLimit sets memoryLimit where the user set none.
func applyMemoryLimit() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
