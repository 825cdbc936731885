package rec

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
)

// loop writes both streams as they come, notes a missed frame as a
// gap, and stops cleanly when its context ends.
func TestLoop(t *testing.T) {
	path := filepath.Join(t.TempDir(), "loop.vsrec")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := Create(ctx, path, Host{}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
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
