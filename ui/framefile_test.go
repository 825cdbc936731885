package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// With Options.FrameFile set, each View leaves its frame there as the
// text a terminal should show, and a new frame replaces it.
func TestFrameFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "frame")
	m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
	m.frames = &frameFile{path: path}
	read := func() string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	m.View()
	first := read()
	if diff := cmp.Diff(screen(m), first); diff != "" {
		t.Errorf("the frame file is not the screen (-screen +file):\n%s", diff)
	}
	if strings.Contains(first, "\x1b") {
		t.Errorf("the frame file has escape sequences:\n%q", first)
	}
	send(m, ":")
	typeText(m, "irq")
	send(m, "enter")
	m.View()
	if got := read(); got == first || got != screen(m) {
		t.Errorf("after :irq the file should hold the IRQ view, got:\n%s", got)
	}
	if n, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".frame-*")); len(n) != 0 {
		t.Errorf("temporary files left: %v", n)
	}
}
