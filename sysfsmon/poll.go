package sysfsmon

import (
	"cmp"
	"time"
)

// Update is one reading of a Watcher: a snapshot of the devices, their
// counters and their IRQs (the files of Documentation/ABI/stable/
// sysfs-class-infiniband and /proc/interrupts), and what changed since
// the previous reading.
type Update struct {
	Seq  int       // 0 for the first update, then 1, 2...
	Time time.Time // when the counters were read
	// Interval is the time since the previous update's counters; 0 on the
	// first update.
	Interval time.Duration
	Devices  []Device
	Counters *CounterSnapshot
	IRQs     *IRQSnapshot
	// CounterRates and IRQRates compare with the previous update; nil on
	// the first.
	CounterRates []CounterRate
	IRQRates     []IRQRate
	// lastIRQs is the IRQ reading of the last full tick, which the
	// next full tick's rates compare with.
	lastIRQs *IRQSnapshot
	// Err is a failure of a whole read (no /sys/class/infiniband, no
	// /proc/interrupts): the first of CountersErr, DevicesErr and
	// IRQsErr. The parts that could be read are still filled in, and
	// watching goes on: a driver loaded later shows up.
	Err                              error
	CountersErr, DevicesErr, IRQsErr error
	// CountersTook and DevicesTook are how long this reading's counters
	// and devices took to read (the exporter reports them).
	CountersTook, DevicesTook time.Duration
}

// CounterValues are the reading's counters with their rates: its
// CounterRates, or on the first reading, which has none, the values
// alone.
func (u *Update) CounterValues() []CounterRate {
	if u.CounterRates != nil || u.Counters == nil {
		return u.CounterRates
	}
	rates, _ := CounterRates(nil, u.Counters)
	return rates
}

// minPollInterval is the shortest interval a Watcher accepts; shorter
// ones are raised to it (reading every GID file of every port is not
// free).
const minPollInterval = 10 * time.Millisecond

// reader takes a Watcher's readings: it keeps what one reading leaves
// the next (the previous Update, the counter files, the GID watch).
type reader struct {
	f      *FS
	every  int
	noIRQs bool
	cf     *counterFiles
	gw     gidWatch
	prev   *Update
	seq    int
}

func newReader(f *FS, every int, noIRQs bool) *reader {
	return &reader{f: f, every: max(every, 1), noIRQs: noIRQs, cf: newCounterFiles(), gw: gidWatch{addrs: f.addrs}}
}

// next takes the next reading and compares it with the one before. A
// device that appeared or went since makes it full, whatever the
// cadence: a reading between full ones would keep the old device list.
func (r *reader) next() Update {
	full := r.prev == nil || r.seq%r.every == 0 || r.devicesChanged()
	var keep []Device
	if full && r.every > 1 && !r.gw.fresh() {
		keep = r.prev.Devices
	}
	r.cf.startTick(full)
	u := Update{Seq: r.seq}
	if full {
		r.full(&u, keep)
	} else {
		r.states(&u)
	}
	u.Err = cmp.Or(u.CountersErr, u.DevicesErr, u.IRQsErr)
	r.prev = &u
	r.seq++
	return u
}

func (r *reader) close() { r.cf.close() }

// devicesChanged reports whether /sys/class/infiniband lists other
// devices than the last reading has (one directory read; an error counts
// as a change, for the full reading to report it).
func (r *reader) devicesChanged() bool {
	names, err := r.f.DeviceNames()
	if err != nil || len(names) != len(r.prev.Devices) {
		return true
	}
	for i, d := range r.prev.Devices {
		if d.Name != names[i] {
			return true
		}
	}
	return false
}

// full reads everything; a port's GID table comes from keep's when its
// state did not move (keep is nil when the tables must be read).
func (r *reader) full(u *Update, keep []Device) {
	// The counters and IRQs first, at the tick: the devices' reading
	// (GID tables) is slow under emulation (docs/performance.md), and
	// reading the counters after it made the windows of their rates
	// swing with it.
	r.counters(u)
	if !r.noIRQs {
		u.IRQs, u.IRQsErr = r.f.IRQs()
	}
	t0 := time.Now()
	u.Devices, u.DevicesErr = r.f.devices(keep)
	u.DevicesTook = time.Since(t0)
	u.lastIRQs = u.IRQs
	if last := r.lastIRQs(); last != nil && u.IRQs != nil {
		var err error
		if u.IRQRates, err = IRQRates(last, u.IRQs); err != nil && u.IRQsErr == nil {
			u.IRQsErr = err
		}
	}
}

// states is a reading between two full ones: port states and counters
// afresh, the rest as the last full reading read it.
func (r *reader) states(u *Update) {
	t0 := time.Now()
	u.Devices = r.f.refreshPorts(r.prev.Devices)
	u.DevicesTook = time.Since(t0)
	u.IRQs, u.IRQRates, u.lastIRQs = r.prev.IRQs, r.prev.IRQRates, r.prev.lastIRQs
	r.counters(u)
}

// counters reads the counters and their rates against the previous
// reading's.
func (r *reader) counters(u *Update) {
	t0 := time.Now()
	u.Counters, u.CountersErr = r.f.counters(r.cf)
	u.CountersTook = time.Since(t0)
	if u.CountersErr == nil {
		u.Time = u.Counters.Time
	}
	if p := r.prev; p != nil && p.Counters != nil && u.Counters != nil {
		u.Interval = u.Counters.Time.Sub(p.Counters.Time)
		var err error
		if u.CounterRates, err = CounterRates(p.Counters, u.Counters); err != nil && u.CountersErr == nil {
			u.CountersErr = err
		}
	}
}

func (r *reader) lastIRQs() *IRQSnapshot {
	if r.prev == nil {
		return nil
	}
	return r.prev.lastIRQs
}
