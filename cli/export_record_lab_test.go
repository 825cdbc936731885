//go:build lab

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestExportRecordLab: `verbscope export --record FILE --retain 1h`
// records from the exporter's own readings while it serves: a verbs
// shell's QP moved to ERR is in the file (read while the exporter
// writes it), the file is 0600, SIGTERM leaves it whole, and an
// exporter restarted on the same FILE keeps the last recording as
// FILE.prev and starts a new one.
func TestExportRecordLab(t *testing.T) {
	labkit.Clean(t)
	path := filepath.Join(t.TempDir(), "export.vsrec")
	start := func() *labkit.Proc {
		return labkit.Start(t, "verbscope", "export", "--web.listen-address=127.0.0.1:19891", "--interval=500ms", "--no-trace",
			"--record", path, "--retain", "1h")
	}
	exp := start()
	labkit.WaitFor(t, labkit.Step, "the exporter recording", func() bool { return strings.Contains(exp.Output(), "record: recording") })
	has := recordHas(path)
	labkit.WaitFor(t, labkit.Step, "a reading in the file", func() bool { return has(`"lifetimes":[`) })
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; channel; cq channel=ch1; qp type=rc cq=cq1; next qp1; modify qp1 err; wait cq1 timeout=10m")
	labkit.WaitFor(t, labkit.Run, "the exporter's recording has the QP in ERR", func() bool { return has(`"state":"ERR"`) })
	sh.Signal(syscall.SIGTERM)
	sh.Exit(t, labkit.Run)
	exp.Signal(syscall.SIGTERM)
	if code := exp.Exit(t, labkit.Step); code != 0 {
		t.Fatalf("export stopped by SIGTERM: status %d\n%s", code, exp.Output())
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the recording's mode: %v %v, want 0600", st.Mode(), err)
	}
	first := recInfo(t, path)

	exp = start()
	labkit.WaitFor(t, labkit.Step, "the restarted exporter recording", func() bool { return strings.Contains(exp.Output(), "record: recording") })
	if !strings.Contains(exp.Output(), "kept the last recording") {
		t.Errorf("the restarted exporter does not say where the last recording went:\n%s", exp.Output())
	}
	labkit.WaitFor(t, labkit.Step, "a reading in the new file", func() bool { return has(`"lifetimes":[`) })
	exp.Signal(syscall.SIGTERM)
	exp.Exit(t, labkit.Step)
	if kept := recInfo(t, path+".prev"); kept.Readings["res"] != first.Readings["res"] || !kept.From.Equal(first.From) {
		t.Errorf("FILE.prev holds %d readings from %s, want the first run's %d from %s", kept.Readings["res"], kept.From, first.Readings["res"], first.From)
	}
	if again := recInfo(t, path); !again.From.After(first.To) {
		t.Errorf("the new recording starts at %s, before the first ended (%s)", again.From, first.To)
	}
}

// recInfoJSON is what TestExportRecordLab reads of record info -j.
type recInfoJSON struct {
	From     time.Time      `json:"from"`
	To       time.Time      `json:"to"`
	Readings map[string]int `json:"readings"`
}

func recInfo(t *testing.T, path string) recInfoJSON {
	t.Helper()
	out, err := exec.Command("verbscope", "record", "info", path, "-j").Output()
	var in recInfoJSON
	if err == nil {
		err = json.Unmarshal(out, &in)
	}
	if err != nil || in.Readings["res"] == 0 {
		t.Fatalf("record info %s: %v (%d readings)\n%s", path, err, in.Readings["res"], out)
	}
	return in
}

// recordHas returns a poll of the recording at path: whether `verbscope
// record export FILE -j` prints want. It runs the command at most once
// a second (each run is a process start under TCG).
func recordHas(path string) func(want string) bool {
	var last time.Time
	return func(want string) bool {
		if time.Since(last) < time.Second {
			return false
		}
		last = time.Now()
		out, err := exec.Command("verbscope", "record", "export", path, "-j").Output()
		return err == nil && strings.Contains(string(out), want)
	}
}
