package trace

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestDrain: drain returns once the reader has handed over every record
// the ring held when it was called, again after more came; it gives up
// with the context when no reader runs, and says so after Close.
func TestDrain(t *testing.T) {
	recs := pingpongRecords(t, 3)
	fake := &fakeRecords{recs: recs[:2], closed: make(chan struct{})}
	tr := &Tracer{rd: fake, book: newBook(nil), self: -1, boot: time.Unix(0, 0), opts: Options{Latency: time.Hour}}
	var mu sync.Mutex
	var got int
	read := make(chan struct{})
	go func() {
		defer close(read)
		for {
			if _, err := tr.Read(); err != nil {
				return
			}
			mu.Lock()
			got++
			mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i, want := range []int{2, 3} {
		if i > 0 {
			fake.add(recs[2])
		}
		if err := tr.drain(ctx); err != nil {
			t.Fatalf("Drain %d: %v", i, err)
		}
		mu.Lock()
		n := got
		mu.Unlock()
		if n != want {
			t.Errorf("Drain %d returned with %d records read, want %d", i, n, want)
		}
	}
	tr.closed.Store(true)
	fake.Close()
	<-read
	if err := tr.drain(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Drain after Close: %v, want ErrClosed", err)
	}

	idle := &Tracer{rd: &fakeRecords{closed: make(chan struct{})}, book: newBook(nil), self: -1}
	short, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	if err := idle.drain(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Drain with no reader: %v, want it to give up with the context", err)
	}
	if len(idle.drains) != 0 {
		t.Errorf("a Drain that gave up is still waiting: %d", len(idle.drains))
	}
}
