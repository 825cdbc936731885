//go:build lab

package inspect

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Helpers for the lab tests: they run inside the lab VM, on rxe0, with
// rdma-core's tools and iproute2 as the oracles.

// labEnv returns a variable the lab's /init sets (LAB_DEV, LAB_GID_INDEX,
// LAB_IP); without it this is not the lab, and the test fails loudly.
func labEnv(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("$%s is not set: lab tests run in the lab VM (go run ./lab/labtest ./inspect)", name)
	}
	return v
}

// proc is a background program of a scenario.
type proc struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan struct{}
	err  error
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start runs a program in the background; the test's cleanup kills it.
func start(t testing.TB, name string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(name, args...), out: &lockedBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *proc) pid() uint32 { return uint32(p.cmd.Process.Pid) }

func (p *proc) kill() {
	select {
	case <-p.done:
	default:
		p.cmd.Process.Kill()
		<-p.done
	}
}

// wait waits for the program to exit by itself.
func (p *proc) wait(t testing.TB, timeout time.Duration) {
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

// waitFor polls cond every 20 ms until it holds or timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rdmaJSON runs `rdma -j resource show [KIND]` and returns its raw output.
func rdmaJSON(t testing.TB, kind string) []byte {
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

// parseRdmaJSON decodes rdma -j output into objects, numbers as
// json.Number so that nothing is rounded.
func parseRdmaJSON(t testing.TB, b []byte) []map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v []map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("rdma JSON %q: %v", b, err)
	}
	return v
}

// dial opens nldev and fails the test if it cannot.
func dial(t testing.TB) *Conn {
	t.Helper()
	c, err := Dial()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// qpsOf returns the QPs of one process.
func qpsOf(t testing.TB, c *Conn, pid uint32) []QP {
	t.Helper()
	qps, err := c.QPs(Query{})
	if err != nil {
		t.Fatal(err)
	}
	var out []QP
	for _, q := range qps {
		if q.HasPID() && q.PID == pid {
			out = append(out, q)
		}
	}
	return out
}

// allInState reports whether n QPs exist and all are in state s.
func allInState(qps []QP, n int, s QPState) bool {
	if len(qps) != n {
		return false
	}
	for _, q := range qps {
		if q.State != s {
			return false
		}
	}
	return true
}

// waitIdle waits until only the kernel's own objects are left (the
// previous scenario's processes have exited and the kernel freed their
// objects).
func waitIdle(t testing.TB, c *Conn) {
	t.Helper()
	waitFor(t, 30*time.Second, "user objects to go away", func() bool {
		sums, err := c.Summary("")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sums {
			for _, n := range []string{"ctx", "mr", "srq", "cm_id"} {
				if v, _ := s.Count(n); v != 0 {
					return false
				}
			}
			if v, _ := s.Count("qp"); v > 1 {
				return false
			}
		}
		return true
	})
}
