package cli

import (
	"context"
	"flag"
	"github.com/verbscope/verbscope/internal/testtree"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/sysfsmon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func fixtureArgs(dir string) []string {
	return []string{"--sysfs", filepath.Join(dir, "sys"), "--procfs", filepath.Join(dir, "proc")}
}

const (
	rxe0Tree = "../sysfsmon/testdata/rxe0"
	mlx5Tree = "../sysfsmon/testdata/mlx5"
)

// stepClock returns a clock that moves one second per call, so rates are
// exact in golden files.
func stepClock() func() time.Time {
	t := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// golden compares got with testdata/name.golden, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cli -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// runView runs a view with the hooks set for a recorded tree and returns
// stdout and stderr as one text for a golden file.
func runView(t *testing.T, wantCode int, args ...string) string {
	t.Helper()
	viewClock = stepClock()
	t.Cleanup(func() { viewClock = time.Now })
	code, stdout, stderr := runCLI(args...)
	if code != wantCode {
		t.Fatalf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", args, code, wantCode, stdout, stderr)
	}
	out := stdout
	if stderr != "" {
		out += "--- stderr\n" + stderr
	}
	return out
}

func TestViewsGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		tree string
		args []string
	}{
		{"devices-rxe0", rxe0Tree, []string{"devices", "-d"}},
		{"devices-rxe0-json", rxe0Tree, []string{"devices", "-j", "-p"}},
		{"devices-mlx5", mlx5Tree, []string{"devices"}},
		{"devices-mlx5-json", mlx5Tree, []string{"devices", "-j", "-p", "dev=mlx5_1"}},
		{"ports-rxe0", rxe0Tree, []string{"ports"}},
		{"ports-rxe0-json", rxe0Tree, []string{"ports", "-j", "-p"}},
		{"ports-mlx5", mlx5Tree, []string{"ports"}},
		{"ports-mlx5-port2", mlx5Tree, []string{"ports", "dev", "mlx5_0", "port", "2"}},
		{"gids-rxe0", rxe0Tree, []string{"gids"}},
		{"gids-rxe0-json", rxe0Tree, []string{"gids", "-j", "-p"}},
		{"gids-mlx5-v2", mlx5Tree, []string{"gids", "dev=mlx5_1", "type=v2"}},
		{"irqs-rxe0", rxe0Tree, []string{"irqs"}},
		{"irqs-rxe0-json", rxe0Tree, []string{"irqs", "-j", "-p"}},
		{"irqs-mlx5", mlx5Tree, []string{"irqs"}},
		{"irqs-mlx5-json", mlx5Tree, []string{"irqs", "-j", "-p", "dev=mlx5_0"}},
		{"counters-rxe0", rxe0Tree, []string{"counters"}},
		{"counters-mlx5-errors", mlx5Tree, []string{"counters", "--errors", "--nonzero"}},
		{"counters-mlx5-json", mlx5Tree, []string{"counters", "-j", "-p", "dev", "mlx5_1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{tc.args[0]}, fixtureArgs(tc.tree)...), tc.args[1:]...)
			golden(t, tc.name, runView(t, 0, args...))
		})
	}
}

// With --interval the views read twice; the wait is replaced by changes
// to a copy of the tree, and the clock moves 1 s per reading.
func TestViewsIntervalGolden(t *testing.T) {
	t.Cleanup(func() { sampleWait = sleepCtx })
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"counters-mlx5-interval", []string{"counters", "--interval", "1s", "--nonzero", "dev", "mlx5_0"}},
		{"counters-mlx5-interval-json", []string{"counters", "-j", "-p", "--interval", "1s", "name=out_of_buffer"}},
		{"irqs-mlx5-interval", []string{"irqs", "--interval", "1s", "dev=mlx5_0"}},
	} {
		dir := testtree.Copy(t, mlx5Tree)
		port := filepath.Join(dir, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0/ports/1")
		sampleWait = func(ctx context.Context, d time.Duration) error {
			testtree.Bump(t, filepath.Join(port, "counters/port_xmit_packets"), 2500)
			testtree.Bump(t, filepath.Join(port, "hw_counters/out_of_buffer"), 1)
			in := filepath.Join(dir, "proc/interrupts")
			b, _ := os.ReadFile(in)
			s := strings.Replace(string(b), " 101:       1000          0", " 101:       1400         30", 1)
			return os.WriteFile(in, []byte(s), 0o644)
		}
		args := append(append([]string{tc.args[0]}, fixtureArgs(dir)...), tc.args[1:]...)
		golden(t, tc.name, runView(t, 0, args...))
	}
}

// On the live system irqs asks libibverbs for num_comp_vectors; here a
// stub plays libibverbs.
func TestIRQsNumCompVectors(t *testing.T) {
	origLive, origNCV := liveVerbs, numCompVectors
	liveVerbs = func(*sysfsmon.FS) bool { return true }
	numCompVectors = func(dev string) (int, error) { return 2, nil }
	t.Cleanup(func() { liveVerbs, numCompVectors = origLive, origNCV })
	golden(t, "irqs-rxe0-compvec", runView(t, 0, append([]string{"irqs"}, fixtureArgs(rxe0Tree)...)...))
}

func TestViewErrors(t *testing.T) {
	empty := t.TempDir()
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{append([]string{"devices"}, append(fixtureArgs(rxe0Tree), "dev=nope0")...), 2, `no RDMA device "nope0"; there are: rxe0`},
		{append([]string{"ports"}, append(fixtureArgs(rxe0Tree), "port=x")...), 2, `port takes numbers and ranges like 5 or 0-6,17, not "x"`},
		{append([]string{"gids"}, append(fixtureArgs(rxe0Tree), "pid=1")...), 2, `gids has no filter "pid"; its filters are link, dev, port, index, type, netdev`},
		{append([]string{"counters"}, append(fixtureArgs(rxe0Tree), "dev")...), 2, `dev needs a value`},
		{append([]string{"counters"}, append(fixtureArgs(rxe0Tree), "--interval", "-1s")...), 2, `invalid value "-1s" for flag -interval: must be positive`},
		{[]string{"devices", "--sysfs", empty, "--procfs", empty}, 1, "no /sys/class/infiniband: the kernel has no RDMA core loaded"},
		{[]string{"irqs", "--sysfs", filepath.Join(rxe0Tree, "sys"), "--procfs", empty}, 1, "sysfsmon: interrupts:"},
		{[]string{"ports", "--sysfs", filepath.Join(empty, "nope")}, 1, "sysfsmon: new:"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
}

func TestViewHelp(t *testing.T) {
	for _, v := range []string{"devices", "ports", "gids", "irqs", "counters"} {
		code, stdout, _ := runCLI(v, "--help")
		for _, s := range []string{"Usage: verbscope " + v, "JSON keys", "Examples:", "--sysfs folder", "-j "} {
			if code != 0 || !strings.Contains(stdout, s) {
				t.Errorf("%s --help lacks %q:\n%s", v, s, stdout)
			}
		}
	}
	_, stdout, _ := runCLI("help")
	for _, v := range []string{"devices", "ports", "gids", "irqs", "counters"} {
		if !strings.Contains(stdout, "  "+v+" ") {
			t.Errorf("overview lacks %s", v)
		}
	}
}
