package rec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

// RunOptions tune Run; the zero value records until ctx ends.
type RunOptions struct {
	// Warn hears what went wrong with the last reading.
	Warn func(string)
	// Written hears of each reading committed: the objects' (res) or
	// sysfs' (sys).
	Written func(source string, t time.Time)
	// Quit, once closed, cuts the last reading short (a second ctrl+c);
	// nil: lastWait bounds it alone.
	Quit <-chan struct{}
}

// Source is what Run records: a live.Host's netlink and sysfs feeds
// (live/host.go), and what its last reading asks of them.
type Source interface {
	Frames() <-chan inspect.Frame
	Updates() <-chan sysfsmon.Update
	// Refresh asks for a reading now.
	Refresh()
	// Drain returns once trace handed over what the kernel had traced
	// (inspect.ModifyQueue.Drain); nil at once without trace.
	Drain(ctx context.Context) error
}

// Run records src's objects, devices and counters into w until ctx
// ends (a clean stop: nil), then takes one last reading (last). A
// reading that fails is written as a gap and recording goes on; only
// the file failing stops it. src's readers must outlive ctx, by the
// last reading; Run does not stop them.
func Run(ctx context.Context, src Source, w *Writer, o RunOptions) error {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	written := o.Written
	if written == nil {
		written = func(string, time.Time) {}
	}
	if err := loop(ctx, w, src.Frames(), src.Updates(), written); err != nil || ctx.Err() == nil {
		return err
	}
	return last(w, src, src, o.Quit, written, warn)
}

// lastWait bounds the last reading: trace's drain and a whole dump
// (10,000 QPs take seconds under emulation).
const lastWait = 15 * time.Second

// watcher is what last needs of the netlink watch.
type watcher interface {
	Refresh()
	Frames() <-chan inspect.Frame
}

// drainer is what last needs of trace (Source.Drain).
type drainer interface {
	Drain(ctx context.Context) error
}

// last writes one more reading when recording stops, taken once trace
// has handed over every event the kernel had traced by then (q, nil
// without trace): without it, what happened since the last reading was
// not in the file, up to an interval of it, and trace's events that
// waited in the ring for a batch (short-lived QPs' whole lives). The
// readings that come first are written too.
func last(w *Writer, res watcher, q drainer, quit <-chan struct{}, written func(string, time.Time), warn func(string)) error {
	ctx, cancel := context.WithTimeout(context.Background(), lastWait)
	defer cancel()
	if quit != nil {
		go func() { // ends with last, at the latest (cancel)
			select {
			case <-quit:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	if q != nil {
		if err := q.Drain(ctx); err != nil {
			warn(fmt.Sprintf("the last reading may miss what trace saw just before the stop: %v", err))
		}
	}
	since := time.Now()
	res.Refresh()
	for {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				warn(fmt.Sprintf("stopped without a last reading: none came within %v", lastWait))
			}
			return nil
		case f, ok := <-res.Frames():
			if !ok {
				return nil
			}
			if err := w.Frame(context.Background(), f); err != nil {
				return err
			}
			written("res", time.Now())
			if f.Err != nil || f.Snapshot == nil || !f.Snapshot.Time.Before(since) {
				return nil
			}
		}
	}
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
			if err := w.writeSys(wctx, u); err != nil {
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
