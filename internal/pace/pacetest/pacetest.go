// Package pacetest fakes pace's clock for the tests of the poll loops:
// their pauses end only when the test says so.
package pacetest

import (
	"sync"
	"testing"
	"time"
)

// WaitLimit is how long a test waits for a loop to start or stop a
// pause before it fails: far beyond what a loaded machine needs.
const WaitLimit = 30 * time.Second

// Clock hands out timers that fire only on Fire, and tells the test each
// pause started (WaitArmed) and stopped (WaitStopped).
type Clock struct {
	mu     sync.Mutex
	timers []*timer
	armed  chan time.Duration
	stops  chan struct{}
}

type timer struct {
	ch   chan time.Time
	done bool
}

// NewClock returns a Clock with no pause under way.
func NewClock() *Clock {
	return &Clock{armed: make(chan time.Duration, 64), stops: make(chan struct{}, 64)}
}

// Timer is pace.Clock's: a pause of d that ends on Fire.
func (c *Clock) Timer(d time.Duration) (<-chan time.Time, func()) {
	ft := &timer{ch: make(chan time.Time, 1)}
	c.mu.Lock()
	c.timers = append(c.timers, ft)
	c.mu.Unlock()
	c.armed <- d
	return ft.ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !ft.done {
			ft.done = true
			c.stops <- struct{}{}
		}
	}
}

// Fire ends every pause under way.
func (c *Clock) Fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ft := range c.timers {
		if !ft.done {
			ft.done = true
			ft.ch <- time.Now()
		}
	}
	c.timers = nil
}

// WaitArmed waits for the loop to start a pause and returns its length.
func (c *Clock) WaitArmed(t testing.TB) time.Duration {
	t.Helper()
	select {
	case d := <-c.armed:
		return d
	case <-time.After(WaitLimit):
		t.Fatal("the loop never started a pause")
		return 0
	}
}

// WaitStopped waits for the loop to stop a pause before its end.
func (c *Clock) WaitStopped(t testing.TB) {
	t.Helper()
	select {
	case <-c.stops:
	case <-time.After(WaitLimit):
		t.Fatal("the loop never stopped its pause")
	}
}
