package pace

import (
	"context"
	"sync"
)

// Loop is a poll loop on its own goroutine: a reading at once, then one
// each time its Pacer says, each delivered on Out where the latest wins.
// The watchers of inspect and sysfsmon are Loops of what they read.
type Loop[T any] struct {
	*Pacer
	out    chan T
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// Start runs the loop until ctx ends or Close. read takes one reading;
// ctx is cancelled when the loop ends, and a reading it interrupted is
// dropped. A reading finished while paused is not delivered. end, when
// set, runs on the loop's goroutine once it is done reading.
func Start[T any](ctx context.Context, p *Pacer, read func(context.Context) T, end func()) *Loop[T] {
	ctx, cancel := context.WithCancel(ctx)
	l := &Loop[T]{Pacer: p, out: make(chan T, 1), cancel: cancel, done: make(chan struct{})}
	go l.run(ctx, read, end)
	return l
}

// Out is the channel readings arrive on. It holds at most one: a newer
// reading replaces one not yet received, so a slow reader sees the
// latest, never a queue. It is closed when the loop ends.
func (l *Loop[T]) Out() <-chan T { return l.out }

// Done is closed when the loop has ended.
func (l *Loop[T]) Done() <-chan struct{} { return l.done }

// Close ends the loop: it cancels the reading under way, waits for the
// loop's goroutine to end and closes Out. It is safe to call more than
// once.
func (l *Loop[T]) Close() {
	l.once.Do(l.cancel)
	<-l.done
}

func (l *Loop[T]) run(ctx context.Context, read func(context.Context) T, end func()) {
	defer close(l.done)
	defer close(l.out)
	if end != nil {
		defer end()
	}
	for {
		if !l.isPaused() {
			v := read(ctx)
			if ctx.Err() != nil {
				return
			}
			if !l.isPaused() {
				Deliver(l.out, v)
			}
		}
		if !l.wait(ctx) {
			return
		}
	}
}
