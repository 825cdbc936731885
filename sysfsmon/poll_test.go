package sysfsmon

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/testtree"
)

// The watcher sends a first reading without rates, then readings with
// deltas against the one before.
// sent_pkts is played by a readFile that adds 200 per reading, and the
// clock ticks 1 s per snapshot (2 s per update: counters and IRQs).
func TestWatchRates(t *testing.T) {
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
	w, clk := watchOn(t, f, WatchOptions{})
	ups := readings(t, w, clk, 3)
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
}

// A Watcher reads the GID tables and IRQs only on full readings, and the
// port states and counters on every one: the port goes down after the
// first reading and shows DOWN at the next tick, while the GIDs between
// full ticks are the last full reading's.
func TestWatchFullEvery(t *testing.T) {
	f := fixture(t, "rxe0")
	read := f.readFile
	var stateReads atomic.Int32
	f.readFile = func(name string) ([]byte, error) {
		if strings.HasSuffix(name, "ports/1/state") && stateReads.Add(1) > 1 {
			return []byte("1: DOWN\n"), nil
		}
		return read(name)
	}
	w, clk := watchOn(t, f, WatchOptions{FullEvery: 3})
	ups := readings(t, w, clk, 4)
	gids := func(i int) *GID { return &ups[i].Devices[0].Ports[0].GIDs[0] }
	if st := ups[0].Devices[0].Ports[0].StateName; st != "ACTIVE" {
		t.Errorf("tick 0: port %s, want ACTIVE", st)
	}
	for i := 1; i <= 2; i++ {
		if st := ups[i].Devices[0].Ports[0].StateName; st != "DOWN" {
			t.Errorf("tick %d between full readings: port %s, want DOWN", i, st)
		}
		if gids(i) != gids(0) {
			t.Errorf("tick %d between full readings read the GID table again", i)
		}
		if ups[i].Counters == nil || ups[i].CounterRates == nil {
			t.Errorf("tick %d has no counters or rates", i)
		}
	}
	if gids(3) == gids(0) {
		t.Error("tick 3, a full reading, kept the old GID table")
	}
}

// TestWatchSeesDevicesAtOnce: between full readings, a device removed
// or added shows at the next reading (each lists the devices), not at
// the next full one; the device that comes back has its GID table read.
func TestWatchSeesDevicesAtOnce(t *testing.T) {
	dir := testtree.Copy(t, filepath.Join("testdata", "rxe0"))
	f, err := NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), WithHostRoot(dir), WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "sys", "class", "infiniband", "rxe0")
	target, err := os.Readlink(link)
	if err != nil {
		t.Fatal(err)
	}
	w, clk := watchOn(t, f, WatchOptions{FullEvery: 100})
	if u := nextUpdate(t, w); len(u.Devices) != 1 {
		t.Fatalf("first reading: %d devices, want rxe0", len(u.Devices))
	}
	if err := os.Remove(link); err != nil { // rdma link delete rxe0
		t.Fatal(err)
	}
	if u := more(t, w, clk, 1)[0]; len(u.Devices) != 0 {
		t.Errorf("the reading after rxe0 went: %d devices, want none", len(u.Devices))
	}
	if err := os.Symlink(target, link); err != nil { // rdma link add rxe0
		t.Fatal(err)
	}
	u := more(t, w, clk, 1)[0]
	if len(u.Devices) != 1 || len(u.Devices[0].Ports) != 1 || len(u.Devices[0].Ports[0].GIDs) == 0 {
		t.Fatalf("the reading after rxe0 came back: %+v, want rxe0 with its port and GIDs", u.Devices)
	}
	if u := more(t, w, clk, 1)[0]; len(u.Devices) != 1 || u.Devices[0].Ports[0].StateName != "ACTIVE" {
		t.Errorf("the reading after: %+v, want rxe0 still, its port's state read", u.Devices)
	}
}
