package rec

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Feed records the readings of watchers that another job owns (the
// exporter's): Frame and Sys hand a reading over and return at once, so
// the owner never waits for the file. A reading not yet written when
// the next one comes is replaced by it, and the writer records the gap
// ("missed"), as Run's watchers do.
type Feed struct {
	frames  chan inspect.Frame
	updates chan sysfsmon.Update
	stop    context.CancelFunc
	done    chan struct{}
	err     error
}

// NewFeed starts writing what Frame and Sys hand over into w until
// Close. written, when set, is told of each reading written.
func NewFeed(ctx context.Context, w *Writer, written func(source string, t time.Time)) *Feed {
	ctx, cancel := context.WithCancel(ctx)
	f := &Feed{frames: make(chan inspect.Frame, 1), updates: make(chan sysfsmon.Update, 1), stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.err = loop(ctx, w, f.frames, f.updates, written)
	}()
	return f
}

// Frame hands an objects' reading over.
func (f *Feed) Frame(fr inspect.Frame) { f.hand(func() { pace.Deliver(f.frames, fr) }) }

// Sys hands a sysfs reading over.
func (f *Feed) Sys(u sysfsmon.Update) { f.hand(func() { pace.Deliver(f.updates, u) }) }

// hand runs a handover unless the writing stopped (a write failed: the
// file is full or gone), when nothing more is kept.
func (f *Feed) hand(fn func()) {
	select {
	case <-f.done:
	default:
		fn()
	}
}

// Done is closed when writing stopped: by Close, or by a write that
// failed (Err says which).
func (f *Feed) Done() <-chan struct{} { return f.done }

// Err is why writing stopped: nil after Close, else the write that
// failed. Valid once Done is closed.
func (f *Feed) Err() error { return f.err }

// Close stops writing (the reading being written is finished first) and
// returns the error that stopped it earlier, if one did. It does not
// close the Writer.
func (f *Feed) Close() error {
	f.stop()
	<-f.done
	return f.err
}
