// Package labkit holds what lab tests (files tagged //go:build lab, run
// in the lab VM by lab/labtest) share: the lab's environment, background
// programs such as ibv_rc_pingpong, polling, and iproute2's rdma as an
// oracle. It is only imported by tests.
package labkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/syncio"
)

// Env returns a variable the lab's /init sets (LAB_DEV, LAB_GID_INDEX,
// LAB_IP); without it this is not the lab VM, and the test fails loudly.
func Env(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("$%s is not set: lab tests run in the lab VM (go run ./lab/labtest PKG)", name)
	}
	return v
}

// Proc is a program running in the background for a test.
type Proc struct {
	cmd  *exec.Cmd
	out  *syncio.Buffer // stdout and stderr share it
	done chan struct{}
	err  error
}

// Start runs a program in the background; the test's cleanup kills it if
// it is still running.
func Start(t testing.TB, name string, args ...string) *Proc {
	t.Helper()
	p := &Proc{cmd: exec.Command(name, args...), out: syncio.NewBuffer(), done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(p.Kill)
	return p
}

// PID returns the program's process id.
func (p *Proc) PID() uint32 { return uint32(p.cmd.Process.Pid) }

// Output is what the program printed so far, stdout and stderr together.
func (p *Proc) Output() string { return p.out.String() }

// Signal sends the program a signal.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Exit waits for the program to exit by itself and returns its status,
// failing the test if it takes longer than timeout.
func (p *Proc) Exit(t testing.TB, timeout time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(timeout):
		t.Fatalf("%s did not finish within %v:\n%s", p.cmd.Path, timeout, p.out.String())
	}
	return -1
}

// Kill ends the program (if it still runs) and waits for it.
func (p *Proc) Kill() {
	select {
	case <-p.done:
	default:
		p.cmd.Process.Kill()
		<-p.done
	}
}

// Wait waits for the program to exit by itself and fails the test if it
// fails or takes longer than timeout.
func (p *Proc) Wait(t testing.TB, timeout time.Duration) {
	t.Helper()
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("%s: %v\n%s", p.cmd.Path, p.err, p.out.String())
		}
	case <-time.After(timeout):
		t.Fatalf("%s did not finish within %v:\n%s", p.cmd.Path, timeout, p.out.String())
	}
}

// WaitFor polls cond until it holds, or fails the test after timeout
// (one of the limits in limits.go). A wait that took more than a third
// of its limit is logged, for the runner's list of slow waits.
//
// Between looks it pauses twice as long as the last look took (at least
// 20 ms, at most a second): many conds start a program (verbscope res -j,
// rdma, tmux), each a second of a vCPU under TCG, and polled back to
// back they kept a vCPU busy for the whole wait, taken from the program
// under test and from the other VM on the host.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	for {
		t0 := time.Now()
		if cond() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(pollPause(time.Since(t0)))
	}
	NoteWait(t, what, time.Since(start), timeout)
}

// pollPause is the pause after a look that took took: twice it, within
// [20 ms, 1 s], so polling takes at most a third of a CPU.
func pollPause(took time.Duration) time.Duration {
	return min(max(2*took, 20*time.Millisecond), time.Second)
}

// NoteWait logs a wait that used more than a third of its limit: less
// than the 3x headroom every limit needs.
func NoteWait(t testing.TB, what string, took, limit time.Duration) {
	t.Helper()
	if took > limit/3 {
		t.Logf("labkit: slow wait: %s took %v of its %v limit", what, took.Round(time.Millisecond), limit)
	}
}

// RdmaJSON runs `rdma -j resource show [KIND]` (iproute2) and returns its
// output.
func RdmaJSON(t testing.TB, kind string) []byte {
	t.Helper()
	args := []string{"-j", "resource", "show"}
	if kind != "" {
		args = append(args, kind)
	}
	out, err := exec.Command("rdma", args...).Output()
	if err != nil {
		t.Fatalf("rdma %s: %v", strings.Join(args, " "), err)
	}
	return bytes.TrimSpace(out)
}

// PingpongPair starts an ibv_rc_pingpong server with args (the lab's GID
// index among them, "-g", Env(t, "LAB_GID_INDEX"), unless the test wants
// the exchange to fail), waits until it listens on TCP port 18515 (0x4853:
// the client connects once and gives up if nobody listens), then starts
// its client; the test's cleanup kills both. Long runs should pass -e:
// without it both sides busy-poll their CQs and take the guest's two
// CPUs from everything the test measures.
func PingpongPair(t testing.TB, args ...string) (server, client *Proc) {
	t.Helper()
	server = Start(t, "ibv_rc_pingpong", args...)
	WaitListening(t, "ibv_rc_pingpong", 18515)
	client = Start(t, "ibv_rc_pingpong", append(args, Env(t, "LAB_IP"))...)
	return server, client
}

// WaitListening waits until something listens on TCP port on any IPv4
// address (a line of /proc/net/tcp in state 0A, TCP_LISTEN): what a
// client that connects once and gives up waits for, where a pause
// would be too short on a loaded host.
func WaitListening(t testing.TB, who string, port int) {
	t.Helper()
	want := fmt.Sprintf(":%04X 00000000:0000 0A", port)
	WaitFor(t, Step, who+" listening on TCP port "+strconv.Itoa(port), func() bool {
		b, _ := os.ReadFile("/proc/net/tcp")
		return strings.Contains(string(b), want)
	})
}
