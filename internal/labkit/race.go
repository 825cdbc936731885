package labkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// raceBinary is the race-built verbscope that labtest -race puts on the
// guest's PATH beside the plain one.
const raceBinary = "verbscope-race"

// RaceBinary makes `verbscope` in this test (the processes it starts, the
// tmux servers it starts and what they run) the race-built one, and
// reports whether there is one: labtest -race (make lab-test) builds it
// beside the plain verbscope; labtest without -race (make bench) does not,
// and the test runs the plain build.
//
// Most lab tests run the plain verbscope, the binary people run: the race
// detector makes a process several times slower under the guest's
// emulation (TestDashboardLive's time, race-built and plain:
// docs/performance.md), and it was most of the suite's time. The tests
// that call RaceBinary are the ones whose processes are most concurrent
// (trace's reader beside the watcher, the shell pane, signals, the
// exporter's collectors): the races the lab has found were there. Each
// test binary is race-built whole, so what the tests run in process is
// checked too.
//
// It sets PATH with t.Setenv, so its test cannot be parallel.
func RaceBinary(t testing.TB) bool {
	t.Helper()
	bin, err := exec.LookPath(raceBinary)
	if err != nil {
		t.Logf("labkit: no %s on PATH (labtest without -race): this test runs the plain verbscope", raceBinary)
		return false
	}
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "verbscope")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return true
}
