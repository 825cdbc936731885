package trace

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fakeLosses counts like a tracer: each Lost call takes the next of a
// list (an error stands for a failed map lookup).
type fakeLosses struct {
	mu        sync.Mutex
	dropped   []uint64
	undecoded uint64
	fail      bool
}

func (f *fakeLosses) Lost() (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		f.fail = false
		return 0, errors.New("lookup failed")
	}
	if len(f.dropped) > 1 {
		f.dropped = f.dropped[1:]
	}
	return f.dropped[0], nil
}

func (f *fakeLosses) Undecoded() uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.undecoded
}

// TestWatchLost: a report each time a count changes, none while they
// stand still or a lookup fails, and none after ctx ends.
func TestWatchLost(t *testing.T) {
	f := &fakeLosses{dropped: []uint64{0, 0, 5, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, fail: true}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got [][2]uint64
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchLost(ctx, f, time.Millisecond, func(d, u uint64) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, [2]uint64{d, u})
			if d == 9 && u == 0 {
				f.mu.Lock()
				f.undecoded = 2
				f.mu.Unlock()
			}
			if u == 2 {
				cancel()
			}
		})
	}()
	<-done
	if d := cmp.Diff([][2]uint64{{5, 0}, {9, 0}, {9, 2}}, got); d != "" {
		t.Errorf("reports (-want +got):\n%s", d)
	}
}
