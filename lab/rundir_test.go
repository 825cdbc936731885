package lab

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSweepRuns: a run folder whose owner process is gone is removed,
// one whose owner lives (this test) is kept, and an unowned one only
// once it is older than any run.
func TestSweepRuns(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, owner string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(p, ownerFile), []byte(owner+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		then := time.Now().Add(-age)
		os.Chtimes(p, then, then)
		return p
	}
	// A pid that was a process and no longer is: a child that ended.
	child := exec.Command("true")
	if err := child.Run(); err != nil {
		t.Fatal(err)
	}
	dead := mk("run-dead", strconv.Itoa(child.Process.Pid), 0)
	live := mk("run-live", strconv.Itoa(os.Getpid()), 0)
	oldUnowned := mk("run-old", "", 3*time.Hour)
	newUnowned := mk("run-new", "", time.Minute)
	other := mk("kernel", "", 3*time.Hour)
	sweepRuns(dir)
	for p, want := range map[string]bool{dead: false, live: true, oldUnowned: false, newUnowned: true, other: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s: kept %v, want %v", filepath.Base(p), err == nil, want)
		}
	}
}
