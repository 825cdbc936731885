package trace

import (
	"context"
	"time"
)

// lostEvery is how often a reader that tells its losses looks at them:
// one map lookup (a system call) a second, so a loss shows within a
// refresh or two.
const lostEvery = time.Second

// lossCounter is what watchLost asks: a *Tracer, or a test's fake.
type lossCounter interface {
	Lost() (uint64, error)
	Undecoded() uint64
}

// watchLost tells report the events t lost so far, those the kernel
// dropped (Lost) and the records that failed to decode (Undecoded),
// whenever either grows, looking every interval until ctx ends.
func watchLost(ctx context.Context, t lossCounter, every time.Duration, report func(dropped, undecoded uint64)) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	var last [2]uint64
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		dropped, err := t.Lost()
		if err != nil {
			continue // one failed lookup; the next tick tries again
		}
		if now := [2]uint64{dropped, t.Undecoded()}; now != last {
			last = now
			report(now[0], now[1])
		}
	}
}
