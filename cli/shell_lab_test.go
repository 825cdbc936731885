//go:build lab

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// objectsOf counts the verbs objects `rdma resource show` (the iproute2
// oracle) attributes to a process. The kernel records the creating
// thread's id, so every thread of the process counts; a process that has
// exited has none left to look up, so its own pid and the threads it had
// when last seen are checked.
func objectsOf(t *testing.T, ids []string) int {
	t.Helper()
	n := 0
	for _, kind := range []string{"qp", "cq", "mr", "pd"} {
		out, err := exec.Command("rdma", "resource", "show", kind).CombinedOutput()
		if err != nil {
			t.Fatalf("rdma resource show %s: %v\n%s", kind, err, out)
		}
		for _, l := range strings.Split(string(out), "\n") {
			for _, id := range ids {
				if strings.Contains(l+" ", " pid "+id+" ") {
					n++
				}
			}
		}
	}
	return n
}

// threadsOf lists a live process's thread ids.
func threadsOf(pid int) []string {
	ids := []string{strconv.Itoa(pid)}
	tasks, _ := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "task"))
	for _, task := range tasks {
		ids = append(ids, task.Name())
	}
	return ids
}

const cleanupScript = "open; pd; channel; cq size=16 channel=ch1; mr size=4096; qp type=rc cq=cq1; qp type=rc cq=cq1; connect qp1 qp2; post recv qp2 mr1[0:64]"

// TestShellCleansUp runs verbscope shell as its own process and checks,
// with rdma resource show, that no object of it survives: after a script
// that ends, one that fails, and one interrupted by SIGTERM mid-way.
func TestShellCleansUp(t *testing.T) {
	for _, tc := range []struct {
		name     string
		script   string
		sigterm  bool
		wantCode int
		wantErr  string
	}{
		{name: "end of script", script: cleanupScript + "; ls"},
		{name: "error", script: cleanupScript + "; modify qp1 rtr", wantCode: 1, wantErr: "refused before the kernel saw it"},
		{name: "SIGTERM", script: cleanupScript + "; wait cq1 timeout=10m", sigterm: true, wantCode: 130, wantErr: "interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command("verbscope", "shell", "--json", "-c", tc.script)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var ids []string
			if tc.sigterm {
				// Wait until the objects exist, then interrupt the wait.
				deadline := time.Now().Add(30 * time.Second)
				for {
					ids = threadsOf(cmd.Process.Pid)
					if objectsOf(t, ids) >= 6 {
						break
					}
					if time.Now().After(deadline) {
						cmd.Process.Kill()
						t.Fatalf("the shell never created its objects; stdout:\n%s", stdout.String())
					}
					time.Sleep(100 * time.Millisecond)
				}
				cmd.Process.Signal(syscall.SIGTERM)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the shell did not end")
			}
			if code := cmd.ProcessState.ExitCode(); code != tc.wantCode {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tc.wantCode, stderr.String())
			}
			if tc.wantErr != "" && !strings.Contains(stderr.String()+stdout.String(), tc.wantErr) {
				t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", tc.wantErr, stdout.String(), stderr.String())
			}
			if !strings.Contains(stdout.String(), `"command":"connect qp1 qp2"`) {
				t.Errorf("--json output lacks the connect record:\n%s", stdout.String())
			}
			if n := objectsOf(t, append(ids, strconv.Itoa(cmd.Process.Pid))); n != 0 {
				t.Errorf("%d verbs objects of the shell are left in rdma resource show", n)
			}
		})
	}
}
