package rec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzOpen reads any bytes as a recording: Open and every read either
// work or return an error; none panics or hangs.
func FuzzOpen(f *testing.F) {
	good, err := os.ReadFile(record(f, WriterOptions{KeyEvery: 2}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("SQLite format 3\x00"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "f.vsrec")
		for _, sfx := range []string{"", "-wal", "-shm"} {
			os.Remove(p + sfx)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		r, err := Open(ctx, p)
		if err != nil {
			return
		}
		defer r.Close()
		_ = readAll(ctx, r)
	})
}
