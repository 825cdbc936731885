package lab

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A run's control folder (controlDir) is removed when its VM ends; a
// runner killed outright (SIGKILL, as TestKilledRunnerLeavesNoQemu does
// on purpose) leaves it behind. Each folder names the process that made
// it in its owner file, and every boot sweeps the folders whose owner is
// gone, so the cache does not grow by one each run.
const ownerFile = "owner"

// staleUnowned is how old a folder without an owner file (made before
// there was one) must be to be swept: older than any run's timeout.
const staleUnowned = 2 * time.Hour

// sweepRuns removes dir's run-* folders whose owner process no longer
// exists.
func sweepRuns(dir string) {
	runs, _ := filepath.Glob(filepath.Join(dir, "run-*"))
	for _, r := range runs {
		if runGone(r) {
			os.RemoveAll(r)
		}
	}
}

func runGone(run string) bool {
	b, err := os.ReadFile(filepath.Join(run, ownerFile))
	if err != nil {
		st, err := os.Stat(run)
		return err == nil && time.Since(st.ModTime()) > staleUnowned
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return true
	}
	// kill(2) with signal 0: ESRCH when no process has the pid.
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ownRun marks run as this process's.
func ownRun(run string) error {
	return os.WriteFile(filepath.Join(run, ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644)
}
