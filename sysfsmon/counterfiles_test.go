package sysfsmon

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestCounterFilesPread: a kept file is read again from its start on
// every tick, sees the new value, and is let go when it disappears.
func TestCounterFilesPread(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rcvd_pkts")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newCounterFiles()
	defer c.close()
	for _, v := range []string{"17\n", "18\n", "123456789\n"} {
		write(v)
		got, err := c.pread(path)
		if want := v[:len(v)-1]; err != nil || got != want {
			t.Fatalf("pread after writing %q: %q, %v; want %q", v, got, err, want)
		}
	}
	if len(c.fds) != 1 {
		t.Errorf("%d files kept open for one counter, want 1", len(c.fds))
	}
	write(string(make([]byte, 100)))
	if _, err := c.pread(path); err == nil {
		t.Error("a 100-byte file read as a counter")
	}
	c.forget(path)
	os.Remove(path)
	if _, err := c.pread(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("pread of a removed file: %v, want ENOENT", err)
	}
	if len(c.fds) != 0 {
		t.Errorf("%d files kept after the counter went", len(c.fds))
	}
}

// TestCounterFilesListing: listings are remembered between full ticks
// and read again on one.
func TestCounterFilesListing(t *testing.T) {
	f := fixture(t, "rxe0")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), nil, 0o644)
	c := newCounterFiles()
	c.startTick(true)
	if names, _ := c.list(f, dir); len(names) != 1 {
		t.Fatalf("first listing %v, want [a]", names)
	}
	os.WriteFile(filepath.Join(dir, "b"), nil, 0o644)
	c.startTick(false)
	if names, _ := c.list(f, dir); len(names) != 1 {
		t.Errorf("a tick between full ones listed again: %v", names)
	}
	c.startTick(true)
	if names, _ := c.list(f, dir); len(names) != 2 {
		t.Errorf("a full tick kept the old listing: %v", names)
	}
}
