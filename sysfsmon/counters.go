package sysfsmon

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/counters"
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
	// Error is true for counters of trouble: the registry's error and
	// drop classes and terminal counters (counters.Info.Alarming); false
	// for a counter the registry does not know.
	Error bool `json:"error"`
	// Driver is the registry's name of the device's driver (Device.Driver),
	// for looking the counter up (counters.Lookup).
	Driver string `json:"driver,omitempty"`
	// Unavailable is set when the file holds no number but the kernel's
	// word that it cannot count ("N/A (no PMA)": the port has no
	// performance agent) or its read fails as not supported; Value is
	// then 0 and means nothing.
	Unavailable bool `json:"unavailable,omitempty"`
}

// info is what the counter registry knows of the counter; ok is false
// for one it does not know.
func (c Counter) info() (counters.Info, bool) { return counters.Lookup(c.Driver, c.Name) }

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
		drv := cf.driver(f, dev)
		s.Counters = f.readCounterDir(cf, &ws, s.Counters, dev, drv, 0, "hw_counters", filepath.Join(dir, "hw_counters"))
		ports, err := cf.list(f, filepath.Join(dir, "ports"))
		if err != nil {
			ws.add(f, filepath.Join(dir, "ports"), err)
		}
		for _, p := range numericNames(ports) {
			pdir := filepath.Join(dir, "ports", strconv.Itoa(p))
			for _, g := range []string{"counters", "hw_counters"} {
				s.Counters = f.readCounterDir(cf, &ws, s.Counters, dev, drv, p, g, filepath.Join(pdir, g))
			}
		}
	}
	s.Warnings = ws
	return s, nil
}

// readCounterDir reads one counters/ or hw_counters/ folder. A file the
// kernel cannot count (unavailable) is listed as such, and the folder
// gets one warning for all of them, not one per file.
func (f *FS) readCounterDir(cf *counterFiles, ws *warnings, out []Counter, dev, drv string, port int, group, dir string) []Counter {
	names, err := cf.list(f, dir)
	if err != nil {
		ws.add(f, dir, err)
		return out
	}
	var unavailable []string
	why := ""
	for _, n := range names {
		if skipCounter(n) {
			continue
		}
		c := Counter{Device: dev, Port: port, Group: group, Name: n, Driver: drv, Error: counterAlarming(drv, n)}
		path := filepath.Join(dir, n)
		s, err := cf.read(f, path)
		if err != nil {
			if !errors.Is(err, syscall.EOPNOTSUPP) && !errors.Is(err, syscall.EINVAL) {
				ws.add(f, path, err)
				continue
			}
			s = err.Error()
		}
		c.Value, c.Unavailable = parseCounterValue(s)
		if c.Unavailable {
			unavailable = append(unavailable, n)
			if why == "" {
				why = strings.TrimSpace(s)
			}
		}
		out = append(out, c)
	}
	if len(unavailable) > 0 {
		ws.add(f, dir, fmt.Errorf("%d of its counters cannot be read (%q%s): %w", len(unavailable), why, noPMAHint(why), ErrUnavailable))
	}
	return out
}

// ErrUnavailable is the note on a counters folder whose files the kernel
// cannot count (Counter.Unavailable; drivers/infiniband/core/sysfs.c
// writes "N/A (no PMA)" for a port without a performance agent): how the
// device is, not a failure to read.
var ErrUnavailable = errors.New("shown as unavailable")

// parseCounterValue reads a counter file's text: a decimal number, or
// anything else the kernel writes for a counter it cannot count ("N/A (no
// PMA)"), which is unavailable.
func parseCounterValue(s string) (v uint64, unavailable bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, true
	}
	return v, false
}

// noPMAHint explains the kernel's "N/A (no PMA)" (core/sysfs.c: the port
// answers no PerfMgt MADs, as on iWARP and some RoCE devices).
func noPMAHint(text string) string {
	if strings.Contains(text, "no PMA") {
		return ": the port has no performance management agent to answer for them"
	}
	return ""
}

// counterAlarming tells whether a rise of the counter deserves a mark:
// the registry's error, drop and terminal counters of the driver (""
// when not known). A counter the registry does not know is not marked:
// its meaning is unknown, not guessed from its name.
func counterAlarming(driver, name string) bool {
	in, ok := counters.Lookup(driver, name)
	return ok && in.Alarming()
}

// CounterRate is one counter's change between two snapshots.
type CounterRate struct {
	Counter
	Delta uint64  `json:"delta"`
	Rate  float64 `json:"rate"` // Delta per second
	// Reset is true when the value went down and the counter's width
	// (counters.Info.WrapBits) does not explain it as a wrap: it was
	// reset. Delta and Rate are then 0. A 32-bit counter that wrapped
	// (mlx5's q counters) has the delta across the wrap.
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
		bits := 0
		if in, ok := c.info(); ok {
			bits = in.WrapBits()
		}
		switch d, ok := counters.Delta(old, c.Value, bits); {
		case c.Unavailable:
		case ok:
			r.Delta, r.Rate = d, float64(d)/dt
		default:
			r.Reset = true
		}
		rates = append(rates, r)
	}
	return rates, nil
}
