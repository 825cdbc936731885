package sysfsmon

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The poller sends a first reading without rates, then readings with
// deltas against the one before, and closes its channel when ctx ends.
// sent_pkts is played by a readFile that adds 200 per reading, and the
// clock ticks 1 s per snapshot (2 s per update: counters and IRQs).
func TestPoll(t *testing.T) {
	f := fixture(t, "rxe0")
	read := f.readFile
	n := 0
	f.readFile = func(name string) ([]byte, error) {
		if strings.HasSuffix(name, "hw_counters/sent_pkts") {
			n++
			return []byte(strconv.Itoa(100+200*n) + "\n"), nil
		}
		return read(name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := f.Poll(ctx, time.Millisecond) // raised to MinPollInterval
	var ups []Update
	for u := range ch {
		ups = append(ups, u)
		if len(ups) == 3 {
			cancel()
			break
		}
	}
	for i, u := range ups {
		if u.Seq != i || u.Err != nil || len(u.Devices) != 1 || u.Counters == nil || u.IRQs == nil {
			t.Fatalf("update %d: seq %d err %v devices %d", i, u.Seq, u.Err, len(u.Devices))
		}
	}
	if ups[0].CounterRates != nil || ups[0].IRQRates != nil || ups[0].Interval != 0 {
		t.Errorf("first update has rates: %+v", ups[0])
	}
	for _, u := range ups[1:] {
		if u.Interval != 2*time.Second {
			t.Errorf("update %d: interval %v, want 2s", u.Seq, u.Interval)
		}
		var sent *CounterRate
		for i, r := range u.CounterRates {
			if r.Name == "sent_pkts" {
				sent = &u.CounterRates[i]
			} else if r.Delta != 0 {
				t.Errorf("update %d: %s moved by %d", u.Seq, r.Name, r.Delta)
			}
		}
		if sent == nil || sent.Delta != 200 || sent.Rate != 100 {
			t.Errorf("update %d: sent_pkts rate %+v, want delta 200 at 100/s", u.Seq, sent)
		}
	}
	// The channel closes once ctx is done.
	select {
	case _, ok := <-ch:
		for ok {
			_, ok = <-ch
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Poll's channel still open 5 s after cancel")
	}
}

// PollWith reads the GID tables and IRQs only on full ticks, and the
// port states and counters on every one: a port that goes down shows at
// the next tick, a GID table read counts only on full ticks.
func TestPollWithFullEvery(t *testing.T) {
	f := fixture(t, "rxe0")
	read := f.readFile
	var gidReads, stateReads int
	down := false
	f.readFile = func(name string) ([]byte, error) {
		switch {
		case strings.Contains(name, "/gids/"):
			gidReads++
		case strings.HasSuffix(name, "ports/1/state"):
			stateReads++
			if down {
				return []byte("1: DOWN\n"), nil
			}
		}
		return read(name)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := f.PollWith(ctx, PollOptions{Interval: time.Millisecond, FullEvery: 3})
	var gids []int
	for u := range ch {
		gids = append(gids, gidReads)
		if u.Seq == 1 {
			down = true
		}
		if u.Seq == 2 {
			if st := u.Devices[0].Ports[0].StateName; st != "DOWN" {
				t.Errorf("tick 2 between full readings: port state %q, want DOWN", st)
			}
			if len(u.Devices[0].Ports[0].GIDs) == 0 {
				t.Error("a tick between full readings lost the GIDs of the last full one")
			}
		}
		if u.Seq == 3 {
			cancel()
			break
		}
	}
	if gids[0] == 0 || gids[1] != gids[0] || gids[2] != gids[0] || gids[3] == gids[0] {
		t.Errorf("GID files read after ticks 0-3: %v; want reads at ticks 0 and 3 only", gids)
	}
	if stateReads < 4 {
		t.Errorf("port state read %d times in 4 ticks", stateReads)
	}
}
