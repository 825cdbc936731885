//go:build vm

// These tests boot real VMs on the host (tag vm; `make test` runs them).

package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func newTestLab(t *testing.T, opts Options) (*Lab, *bytes.Buffer) {
	t.Helper()
	dir := os.Getenv("VERBSCOPE_CACHE")
	if dir == "" {
		dir = filepath.Join("..", ".cache", "lab")
	}
	var out bytes.Buffer
	opts.Out = &out
	opts.Log = testWriter{t}
	l, err := New(context.Background(), &Cache{Dir: dir}, opts)
	if err != nil {
		t.Fatalf("the lab cannot start: %v", err)
	}
	return l, &out
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func TestRunStreamsOutputAndExitStatus(t *testing.T) {
	l, out := newTestLab(t, Options{})
	code, err := l.Run(context.Background(), `uname -r | cut -d. -f1,2; echo "dev=$LAB_DEV gid=$LAB_GID_INDEX"; ibv_devices | grep -c rxe0; printf 'no newline'; exit 7`)
	if err != nil {
		t.Fatal(err)
	}
	if code != 7 {
		t.Errorf("exit status %d, want 7", code)
	}
	// The guest runs the kernel asked for ($LAB_KERNEL, else the default).
	k, err := l.cache.guestKernel()
	if err != nil {
		t.Fatal(err)
	}
	want := k.Name + "\ndev=rxe0 gid=1\n1\nno newline\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

// b's client tries again while a's server is not listening yet: the two
// VMs boot independently, and under load a came up 5 s after b (a fixed
// "sleep 1" before the client then left a's server waiting for the
// VM's whole timeout). A client that connected and then failed ends a's
// server, so the retries fail too and the test with them.
const pairClient = `i=0; while [ $i -lt 120 ]; do ibv_rc_pingpong -g $LAB_GID_INDEX -n 20 $LAB_PEER_IP && exit 0; i=$((i+1)); sleep 1; done; exit 1`

func TestRunPairCrossesTheWire(t *testing.T) {
	l, out := newTestLab(t, Options{})
	code, err := l.RunPair(context.Background(),
		`ibv_rc_pingpong -g $LAB_GID_INDEX -n 20`, pairClient)
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("exit status %d; output:\n%s", code, out)
	}
	for _, want := range []string{"[a]   remote address:", "[b]   remote address:", "GID ::ffff:10.0.1.2", "[a] 20 iters", "[b] 20 iters"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestTimeoutIsAnErrorAndLeavesNoQemu(t *testing.T) {
	l, _ := newTestLab(t, Options{Timeout: 6 * time.Second})
	pids := trackQemu(l)
	start := time.Now()
	_, err := l.Run(context.Background(), "sleep 600")
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want a timeout error", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the timeout took %s to fire", time.Since(start))
	}
	expectGone(t, *pids, "after the timeout")
}

// TestKernelTroubleStopsTheRun provokes the OOM killer in a small memory
// cgroup: the run must stop within seconds with the kernel's lines, not
// wait for its timeout.
func TestKernelTroubleStopsTheRun(t *testing.T) {
	l, _ := newTestLab(t, Options{Timeout: 10 * time.Minute})
	pids := trackQemu(l)
	start := time.Now()
	_, err := l.Run(context.Background(), `echo +memory > /sys/fs/cgroup/cgroup.subtree_control
mkdir /sys/fs/cgroup/hog && echo 16M > /sys/fs/cgroup/hog/memory.max && echo 0 > /sys/fs/cgroup/hog/memory.swap.max
sh -c 'echo $$ > /sys/fs/cgroup/hog/cgroup.procs; exec dd if=/dev/zero of=/dev/null bs=64M count=1'
sleep 600`)
	if err == nil || !strings.Contains(err.Error(), "oom-killer") || !strings.Contains(err.Error(), "reported trouble") {
		t.Fatalf("got %v, want the run stopped with the OOM killer's lines", err)
	}
	// The guest boots in 4-20 s under TCG; the grace for the stack is
	// kernelGrace; anything near the 10-minute timeout means it waited.
	if d := time.Since(start); d > 3*time.Minute {
		t.Errorf("the run stopped %s after it began: it waited instead of stopping at the kernel's report", d.Round(time.Second))
	}
	expectGone(t, *pids, "after the kernel's report")
}

func TestCancelLeavesNoQemu(t *testing.T) {
	l, _ := newTestLab(t, Options{})
	pids := trackQemu(l)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)
	_, err := l.Run(ctx, "sleep 600")
	if err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	expectGone(t, *pids, "after cancel")
}

// trackQemu records the pids of the qemus l starts. (Other labs may run
// on this machine at the same time, so tests look only at their own.)
func trackQemu(l *Lab) *[]int {
	var pids []int
	l.started = func(pid int) { pids = append(pids, pid) }
	return &pids
}

// running reports whether pid is a live process (a zombie is dead).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// expectGone waits briefly for pids to end and fails for any that runs.
func expectGone(t *testing.T, pids []int, when string) {
	t.Helper()
	if len(pids) == 0 {
		t.Fatal("no qemu was started")
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for running(pid) {
			if time.Now().After(deadline) {
				t.Errorf("qemu %d still runs %s", pid, when)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// TestMain lets TestKilledRunnerLeavesNoQemu re-run this test binary as a
// lab runner that it then kills.
func TestMain(m *testing.M) {
	if os.Getenv("VERBSCOPE_LAB_HELPER") == "1" {
		l, err := New(context.Background(), &Cache{Dir: os.Getenv("VERBSCOPE_CACHE")}, Options{})
		if err != nil {
			os.Exit(3)
		}
		l.started = func(pid int) { fmt.Printf("qemu %d\n", pid) }
		l.Run(context.Background(), "sleep 600")
		os.Exit(4)
	}
	os.Exit(m.Run())
}

func TestKilledRunnerLeavesNoQemu(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", ".cache", "lab"))
	if err != nil {
		t.Fatal(err)
	}
	if env := os.Getenv("VERBSCOPE_CACHE"); env != "" {
		dir = env
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VERBSCOPE_LAB_HELPER=1", "VERBSCOPE_CACHE="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscanf(out, "qemu %d\n", &pid); err != nil {
		cmd.Process.Kill()
		t.Fatalf("the helper never started qemu: %v", err)
	}
	if !running(pid) {
		t.Fatalf("qemu %d is not running", pid)
	}
	cmd.Process.Kill() // SIGKILL: no defer, no signal handler runs
	cmd.Wait()
	expectGone(t, []int{pid}, "after its parent was killed")
}
