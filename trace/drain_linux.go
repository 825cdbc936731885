package trace

import (
	"context"
	"fmt"
	"slices"
)

// drain returns once Read has returned every record the ring buffer
// held when drain was called (ringbuf.Reader.Flush), so that a reader
// that stops (verbscope record at ctrl+c) first hands over what the
// kernel already traced: the BPF side wakes the reader only for a full
// batch, and up to Options.Latency of events can wait in the ring
// otherwise. Read must be running (feed); drain gives up when ctx ends.
// A drain that gave up may leave its flush to end the next one early.
func (t *Tracer) drain(ctx context.Context) error {
	t.drainMu.Lock()
	defer t.drainMu.Unlock()
	done := make(chan struct{})
	t.flushMu.Lock()
	t.drains = append(t.drains, done)
	t.flushMu.Unlock()
	forget := func() {
		t.flushMu.Lock()
		defer t.flushMu.Unlock()
		t.drains = slices.DeleteFunc(t.drains, func(d chan struct{}) bool { return d == done })
	}
	if t.closed.Load() {
		forget()
		return fmt.Errorf("trace: drain: %w", ErrClosed)
	}
	if err := t.rd.Flush(); err != nil {
		forget()
		return fmt.Errorf("trace: drain: flushing the ring buffer: %w", err)
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		forget()
		return fmt.Errorf("trace: drain: the reader did not reach the ring buffer's flush: %w", ctx.Err())
	}
}

// flushed tells every waiting drain that Read reached the flush.
func (t *Tracer) flushed() {
	t.flushMu.Lock()
	defer t.flushMu.Unlock()
	for _, d := range t.drains {
		close(d)
	}
	t.drains = nil
}
