package export

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/verbscope/verbscope/internal/rectest"
	"github.com/verbscope/verbscope/rec"
)

// TestKeepPrevSidecars: a restart keeps the recording as FILE.prev, and
// an older FILE.prev's -wal and -shm go rather than stay beside the
// newer FILE.prev (SQLite would read the older log over it); the kept
// file opens and is the newer one.
func TestKeepPrevSidecars(t *testing.T) {
	path := rectest.Small(t)
	older := rectest.Small(t)
	data, err := os.ReadFile(older)
	if err != nil {
		t.Fatal(err)
	}
	// An older .prev left with its log: the exporter killed, restarted
	// once (its log kept beside it), then its file cut by hand.
	for _, p := range []string{path + ".prev", path + ".prev-wal", path + ".prev-shm"} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := keepPrev(path)
	if err != nil || !kept {
		t.Fatalf("keepPrev: %v %v", kept, err)
	}
	for _, sfx := range []string{"-wal", "-shm"} {
		if _, err := os.Lstat(path + ".prev" + sfx); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the older %s.prev%s is still beside the newer .prev: %v", path, sfx, err)
		}
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still there after it was kept: %v", path, err)
	}
	r, err := rec.Open(context.Background(), path+".prev")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if in, err := r.Info(context.Background()); err != nil || in.Readings["res"] != 2 {
		t.Errorf("the kept recording: %+v %v", in, err)
	}
	if kept, err := keepPrev(path); err != nil || kept {
		t.Errorf("keepPrev with no recording: %v %v, want nothing kept", kept, err)
	}
}
