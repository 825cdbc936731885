package sysfsmon

import (
	"context"
	"time"
)

// Update is one tick of Poll: a snapshot of the devices, their counters
// and their IRQs (the files of Documentation/ABI/stable/
// sysfs-class-infiniband and /proc/interrupts), and what changed since
// the previous tick.
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
	// /proc/interrupts); the parts that could be read are still filled
	// in, and polling goes on: a driver loaded later shows up.
	Err error
}

// MinPollInterval is the shortest interval Poll accepts; shorter ones
// are raised to it (reading every GID file of every port is not free).
const MinPollInterval = 10 * time.Millisecond

// PollOptions tune PollWith.
type PollOptions struct {
	// Interval is the time between ticks (at least MinPollInterval).
	Interval time.Duration
	// FullEvery reads the whole tree (devices with their GID and P_Key
	// tables, and the IRQs) every FullEvery ticks; the ticks between
	// re-read the port states (RefreshPorts) and the counters, and keep
	// the IRQ reading and its rates of the last full tick. A full tick
	// reads a port's GID table only when the port's state or one of the
	// host's interface addresses changed (for the two full ticks after),
	// or every 30th full tick. 0 or 1 reads everything every tick, as
	// Poll does.
	FullEvery int
}

// Poll reads the devices, counters and IRQs now and then every interval,
// and sends each reading with its deltas on the returned channel. The
// channel is closed when ctx ends. A reader that falls behind makes Poll
// skip ticks (time.Ticker drops them) rather than queue stale snapshots;
// rates always use the real time between the two readings compared.
func (f *FS) Poll(ctx context.Context, interval time.Duration) <-chan Update {
	return f.PollWith(ctx, PollOptions{Interval: interval})
}

// PollWith is Poll with a cheaper cadence for what rarely changes: the
// dashboard reads counters and port states every second and the GID
// tables and IRQs every few seconds.
func (f *FS) PollWith(ctx context.Context, o PollOptions) <-chan Update {
	interval := max(o.Interval, MinPollInterval)
	every := max(o.FullEvery, 1)
	ch := make(chan Update)
	go func() {
		defer close(ch)
		t := time.NewTicker(interval)
		defer t.Stop()
		var prev *Update
		gw := gidWatch{addrs: f.addrs}
		cf := newCounterFiles()
		defer cf.close()
		for seq := 0; ; seq++ {
			full := prev == nil || seq%every == 0
			var keep []Device
			if full && every > 1 && !gw.fresh() {
				keep = prev.Devices
			}
			cf.startTick(full)
			u := f.pollOnce(seq, prev, full, keep, cf)
			select {
			case ch <- u:
			case <-ctx.Done():
				return
			}
			prev = &u
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch
}

// pollOnce takes one reading and compares it with prev; a full reading
// keeps the GID tables of keep's ports whose state did not move; the
// counters are read through cf's kept files.
func (f *FS) pollOnce(seq int, prev *Update, full bool, keep []Device, cf *counterFiles) Update {
	u := Update{Seq: seq}
	var err error
	if !full {
		return f.pollStates(u, prev, cf)
	}
	// The counters and IRQs first, at the tick: the devices' reading
	// (GID tables) can take most of a second under emulation, and
	// reading the counters after it made the windows of their rates
	// swing with it.
	var cerr, ierr, derr error
	u.Counters, cerr = f.counters(cf)
	u.IRQs, ierr = f.IRQs()
	u.Devices, derr = f.devices(keep)
	switch {
	case cerr != nil:
		u.Err = cerr
	case derr != nil:
		u.Err = derr
	case ierr != nil:
		u.Err = ierr
	}
	if cerr == nil {
		u.Time = u.Counters.Time
	}
	if prev == nil {
		u.lastIRQs = u.IRQs
		return u
	}
	if prev.Counters != nil && u.Counters != nil {
		u.Interval = u.Counters.Time.Sub(prev.Counters.Time)
		if u.CounterRates, err = CounterRates(prev.Counters, u.Counters); err != nil && u.Err == nil {
			u.Err = err
		}
	}
	if last := prev.lastIRQs; last != nil && u.IRQs != nil {
		if u.IRQRates, err = IRQRates(last, u.IRQs); err != nil && u.Err == nil {
			u.Err = err
		}
	}
	u.lastIRQs = u.IRQs
	return u
}

// pollStates is a tick between two full readings: port states and
// counters afresh, the rest as the last full tick read it.
func (f *FS) pollStates(u Update, prev *Update, cf *counterFiles) Update {
	u.Devices = f.RefreshPorts(prev.Devices)
	u.IRQs, u.IRQRates, u.lastIRQs = prev.IRQs, prev.IRQRates, prev.lastIRQs
	var err error
	if u.Counters, err = f.counters(cf); err != nil {
		u.Err = err
	} else {
		u.Time = u.Counters.Time
	}
	if prev.Counters != nil && u.Counters != nil {
		u.Interval = u.Counters.Time.Sub(prev.Counters.Time)
		if u.CounterRates, err = CounterRates(prev.Counters, u.Counters); err != nil && u.Err == nil {
			u.Err = err
		}
	}
	return u
}
