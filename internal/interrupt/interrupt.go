// Package interrupt turns a second ctrl+c or SIGTERM into a channel,
// for a command that, asked to stop, first finishes something (record's
// last reading) unless asked again. The first signal is cli.Main's: it
// ends the command's context (signal.NotifyContext), which from then on
// takes no more; Again listens for the next.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// notify and stop are signal.Notify and signal.Stop; a test hands the
// signals over itself.
var (
	notify = signal.Notify
	stop   = signal.Stop
)

// Again returns a channel closed by the first SIGINT or SIGTERM that
// comes once ctx has ended, and a func that stops listening (the
// channel then never closes). Nothing listens before ctx ends, so the
// signal that ends ctx is not taken for the second one.
func Again(ctx context.Context) (quit <-chan struct{}, release func()) {
	q, done := make(chan struct{}), make(chan struct{})
	after := context.AfterFunc(ctx, func() {
		sigs := make(chan os.Signal, 1)
		notify(sigs, os.Interrupt, syscall.SIGTERM)
		go func() {
			defer stop(sigs)
			select {
			case <-sigs:
				close(q)
			case <-done:
			}
		}()
	})
	return q, func() {
		after()
		close(done)
	}
}
