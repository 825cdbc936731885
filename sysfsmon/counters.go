package sysfsmon

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Counter is one file of a counters/ or hw_counters/ folder
// (Documentation/ABI/stable/sysfs-class-infiniband): counters/ holds the
// IBTA PortCounters the driver answers for (absent on rxe), hw_counters/
// the driver's own, per port and, for some drivers, per device.
type Counter struct {
	Device string `json:"dev"`
	Port   int    `json:"port"`  // 0 for a device-level hw_counters/
	Group  string `json:"group"` // "counters" or "hw_counters"
	Name   string `json:"name"`
	Value  uint64 `json:"value"`
	// Error is true for counters of trouble (see IsErrorCounter).
	Error bool `json:"error"`
}

// Key identifies a counter across snapshots: "rxe0/1/hw_counters/sent_pkts".
func (c Counter) Key() string {
	return c.Device + "/" + strconv.Itoa(c.Port) + "/" + c.Group + "/" + c.Name
}

// CounterSnapshot is every counter of every device at one moment.
type CounterSnapshot struct {
	Time     time.Time `json:"time"`
	Counters []Counter `json:"counters"` // by device, port (device level first), group, name
	Warnings []Warning `json:"warnings"`
}

// skipCounter names hw_counters/ files that are settings, not counts:
// lifespan is how many milliseconds the driver may cache the values.
func skipCounter(name string) bool { return name == "lifespan" }

// Counters reads the counters/ and hw_counters/ of every device and port.
// A file that cannot be read or is not a number is a warning; only an
// unreadable /sys/class/infiniband fails the call.
func (f *FS) Counters() (*CounterSnapshot, error) { return f.counters(nil) }

// counters reads the counters, through cf's kept files in a poll.
func (f *FS) counters(cf *counterFiles) (*CounterSnapshot, error) {
	names, err := f.DeviceNames()
	if err != nil {
		return nil, err
	}
	s := &CounterSnapshot{Time: f.now()}
	var ws warnings
	for _, dev := range names {
		dir := f.sysPath(classIB, dev)
		s.Counters = f.readCounterDir(cf, &ws, s.Counters, dev, 0, "hw_counters", filepath.Join(dir, "hw_counters"))
		ports, err := cf.list(f, filepath.Join(dir, "ports"))
		if err != nil {
			ws.add(f, filepath.Join(dir, "ports"), err)
		}
		for _, p := range numericNames(ports) {
			pdir := filepath.Join(dir, "ports", strconv.Itoa(p))
			for _, g := range []string{"counters", "hw_counters"} {
				s.Counters = f.readCounterDir(cf, &ws, s.Counters, dev, p, g, filepath.Join(pdir, g))
			}
		}
	}
	s.Warnings = ws
	return s, nil
}

func (f *FS) readCounterDir(cf *counterFiles, ws *warnings, out []Counter, dev string, port int, group, dir string) []Counter {
	names, err := cf.list(f, dir)
	if err != nil {
		ws.add(f, dir, err)
		return out
	}
	for _, n := range names {
		if skipCounter(n) {
			continue
		}
		path := filepath.Join(dir, n)
		s, err := cf.read(f, path)
		if err != nil {
			ws.add(f, path, err)
			continue
		}
		v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
		if err != nil {
			ws.add(f, path, fmt.Errorf("not a counter value: %q", strings.TrimSpace(s)))
			continue
		}
		out = append(out, Counter{Device: dev, Port: port, Group: group, Name: n, Value: v, Error: IsErrorCounter(n)})
	}
	return out
}

// CounterRate is one counter's change between two snapshots.
type CounterRate struct {
	Counter
	Delta uint64  `json:"delta"`
	Rate  float64 `json:"rate"` // Delta per second
	// Reset is true when the value went down (the counter was reset,
	// or a 32-bit PortCounter wrapped); Delta and Rate are then 0.
	Reset bool `json:"reset"`
}

// ErrInterval means two snapshots are not in time order, so no rate can
// be computed from them.
var ErrInterval = errors.New("the second snapshot is not later than the first")

// CounterRates compares two snapshots of the same host: for every counter
// in cur that prev also has, its delta and per-second rate, in cur's
// order. Counters that appeared since prev are left out. With prev nil
// (a first reading) it returns cur's values alone, no delta or rate.
func CounterRates(prev, cur *CounterSnapshot) ([]CounterRate, error) {
	if prev == nil {
		out := make([]CounterRate, len(cur.Counters))
		for i, c := range cur.Counters {
			out[i] = CounterRate{Counter: c}
		}
		return out, nil
	}
	dt := cur.Time.Sub(prev.Time).Seconds()
	if dt <= 0 {
		return nil, fmt.Errorf("sysfsmon: counter rates: %s .. %s: %w", prev.Time.Format(time.RFC3339Nano), cur.Time.Format(time.RFC3339Nano), ErrInterval)
	}
	before := make(map[string]uint64, len(prev.Counters))
	for _, c := range prev.Counters {
		before[c.Key()] = c.Value
	}
	rates := make([]CounterRate, 0, len(cur.Counters))
	for _, c := range cur.Counters {
		old, ok := before[c.Key()]
		if !ok {
			continue
		}
		r := CounterRate{Counter: c}
		if c.Value < old {
			r.Reset = true
		} else {
			r.Delta = c.Value - old
			r.Rate = float64(r.Delta) / dt
		}
		rates = append(rates, r)
	}
	return rates, nil
}
