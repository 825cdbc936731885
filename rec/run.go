package rec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

// RunOptions tune Run; the zero value records at inspect's and
// sysfsmon's default intervals until ctx ends.
type RunOptions struct {
	Interval time.Duration
	// Dev limits the recording to one device.
	Dev string
	// Limits are the device limits the Tracker warns near.
	Limits map[string]inspect.Limits
	// Modifies, when set, starts trace's modify events, so that the
	// transitions carry what each modify set (dash.Options.Modifies).
	Modifies func(ctx context.Context, warn func(string), ready func(programs int), latency time.Duration) *inspect.ModifyQueue
	// Warn hears what trace cannot do, and how many programs it
	// attached once it runs.
	Warn func(string)
	// Written hears of each reading committed: the objects' (res) or
	// sysfs' (sys).
	Written func(source string, t time.Time)
}

// Run records c's objects and fsys's devices and counters into w until
// ctx ends (a clean stop: nil). A reading that fails is written as a
// gap and recording goes on; only the file failing stops it.
func Run(ctx context.Context, c *inspect.Conn, fsys *sysfsmon.FS, w *Writer, o RunOptions) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	wo := inspect.WatchOptions{Interval: o.Interval,
		Snapshot: inspect.SnapshotOptions{Query: inspect.Query{Dev: o.Dev}},
		Tracker:  inspect.TrackerConfig{Limits: o.Limits}}
	if o.Modifies != nil {
		wo.Modifies = o.Modifies(ctx, warn, func(n int) {
			warn(fmt.Sprintf("%d programs attached: transitions carry what each modify set", n))
		}, o.Interval)
	}
	res := inspect.Watch(ctx, c, wo)
	defer res.Close()
	sys := fsys.Watch(ctx, sysfsmon.WatchOptions{Interval: o.Interval, FullEvery: 10})
	defer sys.Close()
	return loop(ctx, w, res.Frames(), sys.Updates(), o.Written)
}

// loop writes what the two streams deliver until ctx ends or both
// close. The watchers keep the latest reading only, so a slow write
// never holds their reading loops up: it shows as a gap.
func loop(ctx context.Context, w *Writer, frames <-chan inspect.Frame, updates <-chan sysfsmon.Update, written func(string, time.Time)) error {
	if written == nil {
		written = func(string, time.Time) {}
	}
	// Writes run on their own context: a stop between a reading's
	// arrival and its commit must not leave it half written.
	wctx := context.WithoutCancel(ctx)
	for frames != nil || updates != nil {
		select {
		case <-ctx.Done():
			return nil
		case f, ok := <-frames:
			if !ok {
				frames = nil
				continue
			}
			if err := w.Frame(wctx, f); err != nil {
				return err
			}
			written("res", time.Now())
		case u, ok := <-updates:
			if !ok {
				updates = nil
				continue
			}
			if err := w.Sys(wctx, u); err != nil {
				return err
			}
			written("sys", u.Time)
		}
	}
	if err := ctx.Err(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
