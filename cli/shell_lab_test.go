//go:build lab

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
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
					break // the main thread's id is also the pid
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
	labkit.Clean(t)
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
			sh := labkit.Start(t, "verbscope", "shell", "--json", "-c", tc.script)
			pid := int(sh.PID())
			var ids []string
			if tc.sigterm {
				// Wait until the objects exist, then interrupt the wait.
				labkit.WaitFor(t, labkit.Step, "the shell's objects", func() bool {
					ids = threadsOf(pid)
					return objectsOf(t, ids) >= 5 // PD, CQ, MR and two QPs
				})
				sh.Signal(syscall.SIGTERM)
			}
			code := sh.Exit(t, labkit.Run)
			out := sh.Output()
			if code != tc.wantCode {
				t.Errorf("exit status %d, want %d; output:\n%s", code, tc.wantCode, out)
			}
			if tc.wantErr != "" && !strings.Contains(out, tc.wantErr) {
				t.Errorf("output lacks %q:\n%s", tc.wantErr, out)
			}
			if !strings.Contains(out, `"command":"connect qp1 qp2"`) {
				t.Errorf("--json output lacks the connect record:\n%s", out)
			}
			if n := objectsOf(t, append(ids, strconv.Itoa(pid))); n != 0 {
				t.Errorf("%d verbs objects of the shell are left in rdma resource show", n)
			}
		})
	}
}

// TestScriptSaysItListens runs a script whose listen waits for a peer
// that never comes: the shell says it listens, with the port, while it
// waits (before the listen ends, not only once a peer connected), then
// gives up at the timeout with exit status 1 and what to do.
func TestScriptSaysItListens(t *testing.T) {
	labkit.Clean(t)
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; cq; qp; listen qp1 port=18601 timeout=10s")
	code := sh.Exit(t, labkit.Run)
	out := sh.Output()
	said := strings.Index(out, "… qp1: listening on TCP port 18601")
	ended := strings.Index(out, "listen: accept a client")
	if said < 0 || ended < 0 || said > ended {
		t.Errorf("the progress line is missing or came after the listen ended; output:\n%s", out)
	}
	if code != 1 || !strings.Contains(out, "give the peer longer with timeout=") {
		t.Errorf("exit %d after the timeout, want 1 and a fix; output:\n%s", code, out)
	}
}
