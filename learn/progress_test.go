package learn

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProgress(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/st")
	if got := ProgressPath(); got != "/st/verbscope/learn.json" {
		t.Errorf("ProgressPath with $XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := ProgressPath(); got != "/home/u/.local/state/verbscope/learn.json" {
		t.Errorf("ProgressPath without: %q", got)
	}
	if a, b := PackProgressPath("/packs/a"), PackProgressPath("/packs/b"); a == b || !strings.HasPrefix(filepath.Base(a), "learn-") {
		t.Errorf("packs share progress: %q %q", a, b)
	}
	path := filepath.Join(t.TempDir(), "sub", "learn.json")
	if p, err := LoadProgress(path); err != nil || !cmp.Equal(p, Progress{}) {
		t.Errorf("no progress yet: %+v %v", p, err)
	}
	want := Progress{Lesson: 3, Step: 2, Done: []int{1, 2}}
	if err := want.save(path); err != nil {
		t.Fatal(err)
	}
	if p, err := LoadProgress(path); err != nil || !cmp.Equal(p, want) {
		t.Errorf("saved %+v, loaded %+v %v", want, p, err)
	}
	if err := ResetProgress(path); err != nil {
		t.Fatal(err)
	}
	if p, _ := LoadProgress(path); !cmp.Equal(p, Progress{}) {
		t.Errorf("after reset: %+v", p)
	}
}
