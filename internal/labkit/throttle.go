package labkit

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// Throttle lets procs run for on in every period and keeps them stopped
// (SIGSTOP) the rest of the time, until the test ends. A pingpong pair
// left to run exchanges messages as fast as rxe moves them, and rxe
// moves them in the guest's kernel, where nice does not reach: on a
// loaded host that starved the dashboard under test for a minute at a
// time. Throttled, the pair's QPs stay in RTS and its counters move at
// every refresh, at a tenth of the cost. The returned func ends the
// throttling (the procs run on); the test's end does too.
func Throttle(t testing.TB, on, period time.Duration, procs ...*Proc) (release func()) {
	signal := func(sig syscall.Signal) {
		for _, p := range procs {
			syscall.Kill(int(p.PID()), sig)
		}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			signal(syscall.SIGCONT)
			select {
			case <-stop:
				return
			case <-time.After(on):
			}
			signal(syscall.SIGSTOP)
			select {
			case <-stop:
				signal(syscall.SIGCONT)
				return
			case <-time.After(period - on):
			}
		}
	}()
	var once sync.Once
	release = func() { once.Do(func() { close(stop); <-done }) }
	// Registered after the procs' own cleanups, so it runs before them:
	// they are let go before they are killed.
	t.Cleanup(release)
	return release
}
