package dash

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// An idle dashboard runs on one P and a busy one on all: while it mostly
// waits on the kernel, every wake-up with an idle second P sets a thread
// spinning to look for work (in the lab guest, idle at a 1 s refresh,
// one P took 7.5% of a CPU and two 13%); while it needs more than half
// a CPU (10,000 QPs refreshing under emulation, a race-detector build)
// one P would keep the UI goroutine, and the keys, waiting behind the
// refresh. A native host with 10,000 QPs stays on one P: its refresh is
// a few tens of milliseconds a second.
const (
	busyShare = 0.50 // of one CPU over a second: use every P
	idleShare = 0.25 // ... for idleFor seconds in a row: one P
	idleFor   = 5
)

// procPolicy decides GOMAXPROCS from the process's CPU share of each
// second.
type procPolicy struct {
	max   int // the runtime's own GOMAXPROCS
	procs int // what is set now
	quiet int // seconds in a row under idleShare
}

// next is the GOMAXPROCS for the coming second after one that used
// share of a CPU.
func (p *procPolicy) next(share float64) int {
	switch {
	case share >= busyShare:
		p.quiet, p.procs = 0, p.max
	case share < idleShare:
		if p.quiet++; p.quiet >= idleFor {
			p.procs = 1
		}
	default:
		p.quiet = 0
	}
	return p.procs
}

// adaptProcs applies procPolicy each second until ctx ends. The
// dashboard starts busy (programs loading, first readings) on every P.
func adaptProcs(ctx context.Context) {
	p := &procPolicy{max: runtime.GOMAXPROCS(0)}
	p.procs = p.max
	if p.max == 1 {
		return
	}
	go func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		last, at := cpuTime(), time.Now()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				c := cpuTime()
				share := (c - last).Seconds() / now.Sub(at).Seconds()
				last, at = c, now
				if n := p.next(share); n != runtime.GOMAXPROCS(0) {
					runtime.GOMAXPROCS(n)
				}
			}
		}
	}()
}

// cpuTime is the process's user and system time (getrusage(2)).
func cpuTime() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
