package rec

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

// loop writes both streams as they come, notes a missed frame as a
// gap, and stops cleanly when its context ends.
func TestLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, path := createT(t, "loop.vsrec", Host{}, WriterOptions{})
	fch, updates := make(chan inspect.Frame), make(chan sysfsmon.Update)
	done := make(chan error)
	var written []string
	go func() {
		done <- loop(ctx, w, fch, updates, func(s string, _ time.Time) { written = append(written, s) })
	}()
	fs := frames()
	fch <- fs[0]
	updates <- sysUpdate(0, t0, 0, 0)
	fs[1].Seq = 3 // the watcher dropped frame 2
	fch <- fs[1]
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("loop: %v", err)
	}
	w.Close()
	if len(written) != 3 {
		t.Errorf("written %v, want three readings", written)
	}
	r := openT(t, path)
	in, err := r.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Gaps) != 1 || in.Gaps[0].What != "missed" {
		t.Errorf("gaps %+v, want the missed frame", in.Gaps)
	}
}

// fakeWatcher answers Refresh with a reading taken then, after the
// readings already waiting in frames.
type fakeWatcher struct {
	frames chan inspect.Frame
	answer bool
	order  *[]string
}

func (f *fakeWatcher) Refresh() {
	*f.order = append(*f.order, "refresh")
	if f.answer {
		s := *frames()[1].Snapshot
		s.Time = time.Now()
		f.frames <- inspect.Frame{Seq: 9, Snapshot: &s}
	}
}

func (f *fakeWatcher) Frames() <-chan inspect.Frame { return f.frames }

// TestLast: at a stop, trace's ring is drained first, then one more
// reading is asked for and written, with the one taken before it that
// was still waiting; a quit cuts the wait short, and a watcher that
// ended ends it.
func TestLast(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "last.vsrec", Host{}, WriterOptions{})
	var order, written, warned []string
	q := inspect.NewModifyQueue(0)
	q.SetDrain(func(context.Context) error { order = append(order, "drain"); return nil })
	fw := &fakeWatcher{frames: make(chan inspect.Frame, 2), answer: true, order: &order}
	fw.frames <- frames()[0] // taken before the stop
	note := func(s string, _ time.Time) { written = append(written, s) }
	warn := func(s string) { warned = append(warned, s) }
	if err := last(w, fw, q, nil, note, warn); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"drain", "refresh"}, order); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
	if len(written) != 2 || len(warned) != 0 {
		t.Errorf("written %v, warned %q: want the waiting reading and the last, no warning", written, warned)
	}

	quit := make(chan struct{})
	close(quit)
	start := time.Now()
	if err := last(w, &fakeWatcher{frames: make(chan inspect.Frame), order: &order}, nil, quit, note, warn); err != nil || time.Since(start) > lastWait/3 {
		t.Errorf("with quit closed: %v after %v, want nil at once", err, time.Since(start))
	}
	ended := make(chan inspect.Frame)
	close(ended)
	if err := last(w, &fakeWatcher{frames: ended, order: &order}, nil, nil, note, warn); err != nil || len(written) != 2 || len(warned) != 0 {
		t.Errorf("a watcher that ended: %v, written %v, warned %q", err, written, warned)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rs, err := openT(t, path).Readings(ctx, "res")
	if err != nil || len(rs) != 2 {
		t.Errorf("%d readings in the file (%v), want 2", len(rs), err)
	}
}
