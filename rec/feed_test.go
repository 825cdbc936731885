package rec

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// TestFeed: readings handed to a Feed faster than it writes are never
// waited for; what it wrote opens, with the readings it could not write
// in time (after the first it wrote) as a gap; a Feed whose writes fail stops and says why, and
// hands over nothing after.
func TestFeed(t *testing.T) {
	ctx := context.Background()
	w, path := createT(t, "feed.vsrec", Host{}, WriterOptions{})
	fd := NewFeed(ctx, w, nil)
	fs := frames()
	// waitWritten waits for frame i to reach the file, the way a user
	// would see it: by reading the file.
	waitWritten := func(i int) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			r := openT(t, path)
			rs, _ := r.Readings(ctx, "res")
			r.Close()
			if len(rs) > 0 && rs[len(rs)-1].Time.Equal(fs[i].Snapshot.Time) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("frame %d never reached the file: %d readings", i, len(rs))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	fd.Frame(fs[0])
	waitWritten(0)
	for i, f := range fs[1:] {
		fd.Frame(f)
		fd.Sys(sysUpdate(i, f.Snapshot.Time, uint64(i), uint64(i)))
	}
	waitWritten(len(fs) - 1)
	if err := fd.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r := openT(t, path)
	in, err := r.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	written := in.Readings["res"]
	missed := 0
	for _, g := range in.Gaps {
		if g.What == "missed" {
			missed++
		}
	}
	if written < 2 || written == len(fs) && missed != 0 || written < len(fs) && missed == 0 {
		t.Errorf("%d of %d frames written, %d gaps noted: a frame replaced before it was written is a gap", written, len(fs), missed)
	}

	// A Writer that is closed fails every write: the Feed stops.
	w2, err := Create(ctx, filepath.Join(t.TempDir(), "closed.vsrec"), Host{}, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	fd2 := NewFeed(ctx, w2, nil)
	fd2.Frame(fs[0])
	select {
	case <-fd2.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a Feed whose writes fail did not stop")
	}
	if fd2.Err() == nil {
		t.Error("the stopped Feed does not say why")
	}
	fd2.Frame(fs[1]) // nothing to hand over to: returns at once
	if err := fd2.Close(); err == nil {
		t.Error("Close after a failed write returned nil")
	}
}
