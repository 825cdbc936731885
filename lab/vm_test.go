//go:build vm

// These tests boot real VMs on the host (tag vm; `make test` runs them).

package lab

import (
	"bytes"
	"context"
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
	code, err := l.Run(context.Background(), `echo "dev=$LAB_DEV gid=$LAB_GID_INDEX"; ibv_devices | grep -c rxe0; printf 'no newline'; exit 7`)
	if err != nil {
		t.Fatal(err)
	}
	if code != 7 {
		t.Errorf("exit status %d, want 7", code)
	}
	want := "dev=rxe0 gid=1\n1\nno newline\n"
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
}

func TestRunPairCrossesTheWire(t *testing.T) {
	l, out := newTestLab(t, Options{})
	code, err := l.RunPair(context.Background(),
		`ibv_rc_pingpong -g $LAB_GID_INDEX -n 20`,
		`sleep 1; ibv_rc_pingpong -g $LAB_GID_INDEX -n 20 $LAB_PEER_IP`)
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
	start := time.Now()
	_, err := l.Run(context.Background(), "sleep 600")
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("got %v, want a timeout error", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("the timeout took %s to fire", time.Since(start))
	}
	if n := qemusUsing(t, l.cache.Dir); n != 0 {
		t.Errorf("%d qemu processes of this cache still run after the timeout", n)
	}
}

func TestCancelLeavesNoQemu(t *testing.T) {
	l, _ := newTestLab(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(2*time.Second, cancel)
	_, err := l.Run(ctx, "sleep 600")
	if err == nil {
		t.Fatal("a cancelled run returned no error")
	}
	if n := qemusUsing(t, l.cache.Dir); n != 0 {
		t.Errorf("%d qemu processes of this cache still run after cancel", n)
	}
}

// qemusUsing counts live qemu processes whose command line names dir.
func qemusUsing(t *testing.T, dir string) int {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	n := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		cmd := string(bytes.ReplaceAll(b, []byte{0}, []byte{' '}))
		if strings.HasPrefix(cmd, "qemu-system") && strings.Contains(cmd, dir) {
			n++
		}
	}
	return n
}

// TestMain lets TestKilledRunnerLeavesNoQemu re-run this test binary as a
// lab runner that it then kills.
func TestMain(m *testing.M) {
	if os.Getenv("VERBSCOPE_LAB_HELPER") == "1" {
		l, err := New(context.Background(), &Cache{Dir: os.Getenv("VERBSCOPE_CACHE")}, Options{})
		if err != nil {
			os.Exit(3)
		}
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
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for qemusUsing(t, dir) == 0 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the helper never started qemu")
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill() // SIGKILL: no defer, no signal handler runs
	cmd.Wait()
	deadline = time.Now().Add(5 * time.Second)
	for qemusUsing(t, dir) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("qemu outlived its killed parent")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
