package sysfsmon

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/internal/pace"
)

// defaultWatchInterval is the pause between two readings of a Watcher
// when WatchOptions.Interval is zero: what the dashboard and the
// exporter's one-second-or-so scrapes need.
const defaultWatchInterval = time.Second

// WatchOptions tune Watch; the zero value works.
type WatchOptions struct {
	// Interval is the pause from the end of one reading to the start of
	// the next (default 1 s, at least minPollInterval).
	Interval time.Duration
	// FullEvery reads the whole tree (devices with their GID and P_Key
	// tables, and the IRQs) every FullEvery readings; the readings
	// between re-read the port states (refreshPorts) and the counters,
	// and keep the IRQ reading and its rates of the last full one. A
	// full reading reads a port's GID table only when the port's state
	// or one of the host's interface addresses changed (for the two full
	// readings after), or every 30th full reading. 0 or 1 reads
	// everything every time. A device that appears or goes makes the
	// reading that sees it full (each reading lists the devices), so
	// the cadence never delays one.
	FullEvery int
	// NoIRQs leaves /proc/interrupts unread (Update.IRQs stays nil), for
	// a reader that shows no IRQs (the exporter).
	NoIRQs bool

	// clock is the time source of the pauses (tests use a fake).
	clock pace.Clock
}

// Watcher reads the devices, counters and IRQs of an FS (the files of
// Documentation/ABI/stable/sysfs-class-infiniband and /proc/interrupts)
// at an interval and delivers each reading, with its rates against the
// one before, as an Update: the live stream of the sysfs views and the
// exporter. It has the controls of inspect's Watcher: SetInterval,
// SetPaused, Refresh, Close.
type Watcher struct {
	loop *pace.Loop[Update]
}

// Watch starts watching f: a reading now, then one after every
// interval, until ctx ends or Close.
func (f *FS) Watch(ctx context.Context, o WatchOptions) *Watcher {
	r := newReader(f, o.FullEvery, o.NoIRQs)
	p := pace.New(watchInterval(o.Interval), defaultWatchInterval, o.clock)
	return &Watcher{loop: pace.Start(ctx, p, func(context.Context) Update { return r.next() }, r.close)}
}

// watchInterval raises a short interval to minPollInterval (reading every
// GID file of every port is not free); <= 0 stays, for the default.
func watchInterval(d time.Duration) time.Duration {
	if d <= 0 {
		return d
	}
	return max(d, minPollInterval)
}

// Updates returns the channel readings arrive on. It holds at most one:
// a newer reading replaces one not yet received, so a slow reader sees
// the latest, never a queue (the rates of an Update compare with the
// reading before it, received or not). Nothing in an Update is written
// after it is sent. The channel is closed when watching ends.
func (w *Watcher) Updates() <-chan Update { return w.loop.Out() }

// Refresh asks for a reading now (the next of the FullEvery cadence),
// without waiting for it; while paused it is dropped.
func (w *Watcher) Refresh() { w.loop.Refresh() }

// SetPaused stops (true) or resumes (false) the readings. A reading
// finished while paused is not delivered; resuming reads at once, its
// rates over the whole pause.
func (w *Watcher) SetPaused(paused bool) { w.loop.SetPaused(paused) }

// SetInterval changes the pause between readings (d <= 0: the default);
// the pause under way restarts with it.
func (w *Watcher) SetInterval(d time.Duration) { w.loop.SetInterval(watchInterval(d)) }

// Close stops watching, waits for a reading under way to end, and
// closes Updates. It is safe to call more than once.
func (w *Watcher) Close() error {
	w.loop.Close()
	return nil
}
