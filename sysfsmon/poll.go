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
	// Err is a failure of a whole read (no /sys/class/infiniband, no
	// /proc/interrupts); the parts that could be read are still filled
	// in, and polling goes on: a driver loaded later shows up.
	Err error
}

// MinPollInterval is the shortest interval Poll accepts; shorter ones
// are raised to it (reading every GID file of every port is not free).
const MinPollInterval = 10 * time.Millisecond

// Poll reads the devices, counters and IRQs now and then every interval,
// and sends each reading with its deltas on the returned channel. The
// channel is closed when ctx ends. A reader that falls behind makes Poll
// skip ticks (time.Ticker drops them) rather than queue stale snapshots;
// rates always use the real time between the two readings compared.
func (f *FS) Poll(ctx context.Context, interval time.Duration) <-chan Update {
	interval = max(interval, MinPollInterval)
	ch := make(chan Update)
	go func() {
		defer close(ch)
		t := time.NewTicker(interval)
		defer t.Stop()
		var prev *Update
		for seq := 0; ; seq++ {
			u := f.pollOnce(seq, prev)
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

// pollOnce takes one reading and compares it with prev.
func (f *FS) pollOnce(seq int, prev *Update) Update {
	u := Update{Seq: seq}
	var err error
	if u.Devices, err = f.Devices(); err != nil {
		u.Err = err
	}
	if u.Counters, err = f.Counters(); err != nil {
		u.Err = err
	} else {
		u.Time = u.Counters.Time
	}
	if u.IRQs, err = f.IRQs(); err != nil && u.Err == nil {
		u.Err = err
	}
	if prev == nil {
		return u
	}
	if prev.Counters != nil && u.Counters != nil {
		u.Interval = u.Counters.Time.Sub(prev.Counters.Time)
		if u.CounterRates, err = CounterRates(prev.Counters, u.Counters); err != nil && u.Err == nil {
			u.Err = err
		}
	}
	if prev.IRQs != nil && u.IRQs != nil {
		if u.IRQRates, err = IRQRates(prev.IRQs, u.IRQs); err != nil && u.Err == nil {
			u.Err = err
		}
	}
	return u
}
