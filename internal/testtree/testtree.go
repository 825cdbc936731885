// Package testtree helps tests that read recorded sysfs/procfs trees
// (sysfsmon/testdata): a writable copy to change, counters to move, and
// files that block.
// It is only imported by tests.
package testtree

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Copy copies the fixture at src (symlinks as links) into a temporary
// folder the test may change, and returns it.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, out)
		case info.IsDir():
			return os.MkdirAll(out, 0o755)
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(out, b, 0o644)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Bump adds n to the counter file at path (a decimal number and a
// newline, as sysfs counters read).
func Bump(t testing.TB, path string, n uint64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strconv.FormatUint(v+n, 10)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Blocked is a fixture file that hangs: a FIFO, whose open blocks until
// a writer comes, as a sysfs file whose driver's show() never returns.
type Blocked struct {
	t    testing.TB
	path string
}

// Block makes the file at path a FIFO.
func Block(t testing.TB, path string) *Blocked {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return &Blocked{t, path}
}

// Release lets one pending read through (it reads "7") and reports
// whether one was pending; it never blocks.
func (b *Blocked) Release() bool {
	// O_NONBLOCK: the open fails (ENXIO) while no reader waits, rather
	// than block the test.
	f, err := os.OpenFile(b.path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if !errors.Is(err, syscall.ENXIO) {
			b.t.Errorf("open the FIFO: %v", err)
		}
		return false
	}
	f.WriteString("7\n")
	f.Close()
	return true
}

// Await waits for a read to block on the file, up to 30 s (a loaded
// machine under -race), and lets it through.
func (b *Blocked) Await() {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !b.Release() {
		if time.Now().After(deadline) {
			b.t.Fatalf("no read came to %s", b.path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Write writes s to the file rel under root, making its folders: a
// made-up /proc or /sys entry.
func Write(t testing.TB, root, rel, s string) {
	t.Helper()
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
