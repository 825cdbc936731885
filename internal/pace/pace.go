// Package pace times the poll loops of the live views (inspect's Watcher
// of RDMA netlink, sysfsmon's Watcher of sysfs and procfs) with the
// controls a person has over them: an interval, pause and resume, and a
// reading now (Start runs a Loop paced by a Pacer, New). The loops differ
// only in what they read; the timing, and the latest-wins delivery of
// what they read, is written once here: Deliver, which every stream of
// readings uses (the dashboard's, the recorder's, the exporter's), and
// LateAfter, when a reading that has not come is late.
package pace

import (
	"context"
	"sync/atomic"
	"time"
)

// LateAfter is how many intervals may pass without a reading before the
// one under way is called late, by the exporter (its collectors fail)
// and the dashboard (its header says so): one slow reading (a busy
// host, a dump of 10,000 QPs) is not a fault, three intervals without
// one is a reading that hangs (a sysfs file that blocks, a netlink
// dump that never ends).
const LateAfter = 3

// Clock makes a Pacer's pauses; tests fake it (pacetest.Clock).
type Clock interface {
	// Timer returns a channel that receives once after d, and a
	// function that stops it.
	Timer(d time.Duration) (<-chan time.Time, func())
}

// realClock is time's timers.
type realClock struct{}

// Timer is a time.Timer's channel and its Stop.
func (realClock) Timer(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTimer(d)
	return t.C, func() { t.Stop() }
}

// Pacer says when a poll loop reads next: its loop calls Wait between
// two readings, and anyone may call Refresh, SetPaused and SetInterval
// meanwhile. The pause runs from the end of one reading to the start of
// the next, so a slow reading never runs back to back.
type Pacer struct {
	refresh  chan struct{}
	control  chan struct{}
	paused   atomic.Bool
	interval atomic.Int64
	def      time.Duration
	clock    Clock
}

// New returns a Pacer that pauses interval between readings; def stands
// in for an interval <= 0, here and in SetInterval. A nil clk is
// realClock.
func New(interval, def time.Duration, clk Clock) *Pacer {
	if clk == nil {
		clk = realClock{}
	}
	p := &Pacer{refresh: make(chan struct{}, 1), control: make(chan struct{}, 1), def: def, clock: clk}
	p.interval.Store(int64(p.orDefault(interval)))
	return p
}

func (p *Pacer) orDefault(d time.Duration) time.Duration {
	if d <= 0 {
		return p.def
	}
	return d
}

// Refresh asks for a reading now, without waiting for it. Requests made
// while a reading is under way are coalesced into one more; while
// paused they are dropped.
func (p *Pacer) Refresh() { poke(p.refresh) }

// SetPaused stops (true) or resumes (false) the readings; resuming
// reads at once.
func (p *Pacer) SetPaused(paused bool) {
	if p.paused.Swap(paused) != paused {
		poke(p.control)
	}
}

// Paused reports whether the readings are paused: a reading finished
// while paused is not delivered.
func (p *Pacer) Paused() bool { return p.paused.Load() }

// SetInterval changes the pause between readings (d <= 0: the default);
// the pause under way restarts with it.
func (p *Pacer) SetInterval(d time.Duration) {
	d = p.orDefault(d)
	if time.Duration(p.interval.Swap(int64(d))) != d {
		poke(p.control)
	}
}

// Interval is the pause between readings now.
func (p *Pacer) Interval() time.Duration { return time.Duration(p.interval.Load()) }

// Wait pauses until the next reading is due: the interval passed, a
// Refresh, or a resume. It returns false when ctx ended.
func (p *Pacer) Wait(ctx context.Context) bool {
	was := p.paused.Load()
	for {
		paused := p.paused.Load()
		if was && !paused {
			// Resumed: read now, which covers a Refresh made while
			// paused.
			select {
			case <-p.refresh:
			default:
			}
			return true
		}
		was = paused
		var tick <-chan time.Time
		stop := func() {}
		if !paused {
			tick, stop = p.clock.Timer(p.Interval())
		}
		select {
		case <-ctx.Done():
			stop()
			return false
		case <-tick:
			return true
		case <-p.refresh:
			stop()
			if !paused && !p.paused.Load() {
				return true
			}
		case <-p.control:
			// Paused, resumed or a new interval: look again.
			stop()
		}
	}
}

// poke sends a coalescing signal.
func poke(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Deliver sends v on ch, a channel of one slot that only the caller
// sends on, replacing a value the reader has not taken: a slow reader
// sees the latest reading, never a queue.
func Deliver[T any](ch chan T, v T) {
	select {
	case ch <- v:
		return
	default:
	}
	select {
	case <-ch:
	default:
	}
	ch <- v
}
