package interrupt

import (
	"context"
	"os"
	"testing"
	"time"
)

// handOver replaces the signals with a channel the test sends on: it
// receives the channel Again listens on, once Again listens.
func handOver(t *testing.T) <-chan chan<- os.Signal {
	t.Helper()
	listening := make(chan chan<- os.Signal, 1)
	stopped := make(chan struct{})
	notify, stop = func(c chan<- os.Signal, _ ...os.Signal) { listening <- c }, func(chan<- os.Signal) { close(stopped) }
	t.Cleanup(func() {
		<-stopped // every listener lets go of the signals
		notify, stop = nil, nil
	})
	return listening
}

// TestAgainAfterTheEnd: nothing listens while ctx lives; once it
// ended, the next signal closes quit.
func TestAgainAfterTheEnd(t *testing.T) {
	listening := handOver(t)
	ctx, cancel := context.WithCancel(context.Background())
	quit, release := Again(ctx)
	defer release()
	select {
	case <-listening:
		t.Fatal("Again listens before ctx ended: the signal that ends it would count as the second")
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	sigs := <-listening
	select {
	case <-quit:
		t.Fatal("quit closed before a second signal")
	default:
	}
	sigs <- os.Interrupt
	<-quit
}

// TestAgainReleased: released, Again stops listening and quit stays
// open.
func TestAgainReleased(t *testing.T) {
	listening := handOver(t)
	ctx, cancel := context.WithCancel(context.Background())
	quit, release := Again(ctx)
	cancel()
	<-listening
	release()
	select {
	case <-quit:
		t.Error("quit closed without a signal")
	case <-time.After(50 * time.Millisecond):
	}
}
