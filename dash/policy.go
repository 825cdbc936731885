package dash

import (
	"context"
	"os"
	"runtime/debug"
)

// The dashboard's runtime policy, in one place.

// FPS is the most frames a second the dashboard draws. Bubble Tea's
// renderer wakes at this rate even when nothing changed; 30 keeps a key's
// echo within a frame a person does not notice and halves the idle
// wake-ups of the default 60.
const FPS = 30

// fullEvery is how many ticks pass between two readings of the GID
// tables and IRQs (port states and counters are read every tick): reading
// rxe's 1,024-entry GID table takes most of a second under emulation.
const fullEvery = 10

// memoryLimit is the dashboard's soft heap limit (GOMEMLIMIT
// overrides it). With 10,000 QPs of another process shown the heap holds
// ~28 MB; at 32 MiB the collector runs more often during a refresh (in
// the lab guest a key's round trip went from 0.5 to 0.7 s) and RSS stays
// near 46 MB instead of 54.
const memoryLimit = 32 << 20

func applyRuntimePolicy(ctx context.Context) {
	if os.Getenv("GOMEMLIMIT") == "" {
		// A viewer left open for days: keep the heap near what the data
		// needs rather than twice the peak.
		debug.SetMemoryLimit(memoryLimit)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		adaptProcs(ctx)
	}
}

// afterTraceLoaded runs once trace's programs are attached.
func afterTraceLoaded() {
	// Loading parsed the kernel's BTF, megabytes now garbage: hand those
	// pages back now rather than as the scavenger gets to them.
	debug.FreeOSMemory()
}
