package sysfsmon

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/pace/pacetest"
)

// startWatch watches the rxe0 fixture on a fake clock; the port reads
// DOWN once down is set, and reads counts the readings (each reads the
// port's state once).
func startWatch(t *testing.T, o WatchOptions) (w *Watcher, clk *pacetest.Clock, reads *atomic.Int32, down *atomic.Bool) {
	t.Helper()
	f := fixture(t, "rxe0")
	read := f.readFile
	reads, down = &atomic.Int32{}, &atomic.Bool{}
	f.readFile = func(name string) ([]byte, error) {
		if strings.HasSuffix(name, "ports/1/state") {
			reads.Add(1)
			if down.Load() {
				return []byte("1: DOWN\n"), nil
			}
		}
		return read(name)
	}
	w, clk = watchOn(t, f, o)
	return w, clk, reads, down
}

// watchOn watches f on a fake clock.
func watchOn(t *testing.T, f *FS, o WatchOptions) (*Watcher, *pacetest.Clock) {
	t.Helper()
	clk := pacetest.NewClock()
	o.clock = clk
	w := f.Watch(context.Background(), o)
	t.Cleanup(func() { w.Close() })
	return w, clk
}

// readings takes n readings of w: the first, then one per pause ended.
func readings(t *testing.T, w *Watcher, clk *pacetest.Clock, n int) []Update {
	t.Helper()
	return append([]Update{nextUpdate(t, w)}, more(t, w, clk, n-1)...)
}

// more ends n pauses and takes the reading after each.
func more(t *testing.T, w *Watcher, clk *pacetest.Clock, n int) []Update {
	t.Helper()
	var ups []Update
	for range n {
		clk.WaitArmed(t)
		clk.Fire()
		ups = append(ups, nextUpdate(t, w))
	}
	return ups
}

func nextUpdate(t *testing.T, w *Watcher) Update {
	t.Helper()
	select {
	case u, ok := <-w.Updates():
		if !ok {
			t.Fatal("Updates closed, want a reading")
		}
		return u
	case <-time.After(pacetest.WaitLimit):
		t.Fatal("no reading arrived")
		return Update{}
	}
}

// TestWatchReadings: a reading at once, the next after the interval,
// with rates against the first; an Update already delivered is not
// changed by the readings after it.
func TestWatchReadings(t *testing.T) {
	w, clk, _, down := startWatch(t, WatchOptions{Interval: 5 * time.Second})
	u0 := nextUpdate(t, w)
	if u0.Seq != 0 || u0.Err != nil || u0.CounterRates != nil || len(u0.Devices) != 1 {
		t.Fatalf("first reading: seq %d, err %v, rates %v, %d devices", u0.Seq, u0.Err, u0.CounterRates, len(u0.Devices))
	}
	if d := clk.WaitArmed(t); d != 5*time.Second {
		t.Errorf("pause %v, want the 5s interval", d)
	}
	down.Store(true)
	clk.Fire()
	u1 := nextUpdate(t, w)
	if u1.Seq != 1 || u1.CounterRates == nil || u1.Interval <= 0 {
		t.Errorf("second reading: seq %d, interval %v, rates %v", u1.Seq, u1.Interval, u1.CounterRates)
	}
	if st := u1.Devices[0].Ports[0].StateName; st != "DOWN" {
		t.Errorf("second reading: port %s, want DOWN", st)
	}
	if st := u0.Devices[0].Ports[0].StateName; st != "ACTIVE" {
		t.Errorf("the first reading changed after delivery: port %s", st)
	}
}

// TestWatchPauseRefresh: Refresh reads now; nothing is read while
// paused, a Refresh then is dropped, and resuming reads at once.
func TestWatchPauseRefresh(t *testing.T) {
	w, clk, reads, _ := startWatch(t, WatchOptions{Interval: time.Hour})
	nextUpdate(t, w)
	clk.WaitArmed(t)
	w.Refresh()
	clk.WaitStopped(t)
	if u := nextUpdate(t, w); u.Seq != 1 {
		t.Errorf("after Refresh: reading %d, want 1", u.Seq)
	}
	clk.WaitArmed(t)
	w.SetPaused(true)
	clk.WaitStopped(t) // the watcher saw the pause
	w.Refresh()
	clk.Fire() // no pause is under way: nothing fires
	if n := reads.Load(); n != 2 {
		t.Errorf("%d readings while paused, want the 2 before", n)
	}
	w.SetPaused(false)
	u := nextUpdate(t, w)
	clk.WaitArmed(t)
	if u.Seq != 2 || reads.Load() != 3 {
		t.Errorf("after resuming: reading %d, %d in all; want 2 and 3 (none while paused)", u.Seq, reads.Load())
	}
	if u.CounterRates == nil {
		t.Error("the reading after the pause has no rates")
	}
}

// TestWatchSetInterval: a new interval restarts the pause under way; a
// short one is raised to minPollInterval, none is the default.
func TestWatchSetInterval(t *testing.T) {
	w, clk, _, _ := startWatch(t, WatchOptions{Interval: time.Millisecond})
	nextUpdate(t, w)
	if d := clk.WaitArmed(t); d != minPollInterval {
		t.Errorf("pause %v with a 1ms interval, want MinPollInterval", d)
	}
	for _, tc := range []struct{ set, want time.Duration }{
		{250 * time.Millisecond, 250 * time.Millisecond},
		{0, defaultWatchInterval},
		{time.Nanosecond, minPollInterval},
	} {
		w.SetInterval(tc.set)
		clk.WaitStopped(t)
		if d := clk.WaitArmed(t); d != tc.want {
			t.Errorf("pause %v after SetInterval(%v), want %v", d, tc.set, tc.want)
		}
	}
}

// TestWatchClose: Close ends watching and closes Updates, once or twice.
func TestWatchClose(t *testing.T) {
	w, clk, _, _ := startWatch(t, WatchOptions{})
	nextUpdate(t, w)
	clk.WaitArmed(t)
	w.Close()
	w.Close()
	if _, ok := <-w.Updates(); ok {
		t.Error("Updates still open after Close")
	}
}
