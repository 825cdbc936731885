package cli

import (
	"os"
	"runtime/debug"
)

// oneShotMemoryLimit is the heap at which a one-shot command collects
// garbage after all: far above what 100,000 objects take
// (BenchmarkResProcess lists 10,000 QPs: docs/performance.md), low enough
// to be harmless on a small host.
const oneShotMemoryLimit = 512 << 20

// noGC turns the garbage collector off for a command that prints once and
// exits, and returns what restores it. The process's memory goes back to
// the kernel at exit anyway; collecting it first costs a listing of 10,000
// QPs several GC cycles, each waking the GC's worker threads, which under
// emulation (the lab's TCG guest) was a large share of the run
// (BenchmarkResProcess: docs/performance.md). The memory limit makes the
// collector run still if a host has far more objects than that. A GOGC or
// GOMEMLIMIT the user set is kept.
func noGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	pct := debug.SetGCPercent(-1)
	limit := debug.SetMemoryLimit(oneShotMemoryLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(pct)
	}
}
