package sysfsmon

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/verbscope/verbscope/internal/testtree"
)

// statLine is a /proc/PID/stat line of a process started at tick start.
func statLine(pid int, comm string, start int) string {
	return fmt.Sprintf("%d (%s) S 1 %d %d 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 3 0 %d 10000000 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n", pid, comm, pid, pid, start)
}

// The cache reads a process's command line and user once while it
// lives, and its VmPin, cgroup and memlock limit every time; an exec or
// a pid reused by a new process is read afresh, and an exited one
// forgotten.
func TestOwnerCache(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) { testtree.Write(t, root, rel, s) }
	limits := func(n int) string {
		return fmt.Sprintf("Limit                     Soft Limit           Hard Limit           Units\nMax locked memory         %d              %d              bytes\n", n, n)
	}
	status := func(uid, vmpin int) string {
		return fmt.Sprintf("Name:\tjob\nUid:\t%d\t%d\t%d\t%d\nGid:\t0\t0\t0\t0\nCapEff:\t0000000000000000\nVmPin:\t%d kB\n", uid, uid, uid, uid, vmpin)
	}
	write("sys/.keep", "")
	write("etc/passwd", "root:x:0:0::/:/bin/sh\nalice:x:1000:1000::/:/bin/sh\nbob:x:1001:1001::/:/bin/sh\n")
	write("proc/812/stat", statLine(812, "a job (1)", 500))
	write("proc/812/status", status(1000, 4))
	write("proc/812/comm", "a job (1)\n")
	write("proc/812/cmdline", "job\x00--rank\x000\x00")
	write("proc/812/cgroup", "0::/system.slice/x.service\n")
	write("proc/812/limits", limits(65536))
	fsys, err := NewFS(filepath.Join(root, "sys"), filepath.Join(root, "proc"), WithHostRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	c := fsys.NewOwnerCache()
	look := func(what string) ProcessOwner {
		t.Helper()
		o, err := c.ProcessOwner(812)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if direct, err := fsys.ProcessOwner(812); err != nil || direct.VmPin != o.VmPin || direct.Cgroup != o.Cgroup || direct.MemlockSoft != o.MemlockSoft {
			t.Errorf("%s: the cache read %+v, ProcessOwner %+v (%v)", what, o, direct, err)
		}
		return o
	}
	if o := look("first"); o.Comm != "a job (1)" || o.Cmdline != "job --rank 0" || o.User != "alice" || o.VmPin != 4<<10 {
		t.Fatalf("first lookup: %+v", o)
	}
	// It pins more, is moved to another cgroup, gets a new limit, and
	// rewrites its argv: all but the argv show.
	write("proc/812/status", status(1000, 8))
	write("proc/812/cgroup", "0::/system.slice/y.service\n")
	write("proc/812/limits", limits(1<<20))
	write("proc/812/cmdline", "rewritten\x00")
	if o := look("moved"); o.Cmdline != "job --rank 0" || o.Cgroup.Unit != "y.service" || o.MemlockSoft.Value != 1<<20 || o.VmPin != 8<<10 {
		t.Errorf("after the move: %+v", o)
	}
	// setuid: the user is read again.
	write("proc/812/status", status(1001, 8))
	if o := look("setuid"); o.User != "bob" {
		t.Errorf("after setuid: user %q, want bob", o.User)
	}
	// An exec: the same start time, another comm and command line.
	write("proc/812/stat", statLine(812, "mpirun", 500))
	if o := look("exec"); o.Comm != "mpirun" || o.Cmdline != "rewritten" {
		t.Errorf("after an exec: %+v", o)
	}
	write("proc/812/cmdline", "rewritten again\x00")
	// The pid reused by another process: read afresh.
	write("proc/812/stat", statLine(812, "other", 900))
	write("proc/812/comm", "other\n")
	if o := look("reused"); o.Comm != "other" || o.Cmdline != "rewritten again" {
		t.Errorf("a reused pid: %+v", o)
	}
	if err := os.RemoveAll(filepath.Join(root, "proc/812")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ProcessOwner(812); !errors.Is(err, ErrNoProcess) {
		t.Errorf("an exited process: %v, want ErrNoProcess", err)
	}
	// Other lookups prune what is no longer asked about.
	write("proc/813/stat", statLine(813, "next", 1000))
	write("proc/813/status", status(0, 0))
	for range 40 {
		if _, err := c.ProcessOwner(813); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.known[812]; ok || len(c.known) != 1 {
		t.Errorf("the cache keeps %d entries after 812 exited", len(c.known))
	}
}

func TestParseStatStart(t *testing.T) {
	for _, c := range []struct {
		in    string
		comm  string
		start uint64
		err   string
	}{
		{in: statLine(812, "ib_write_bw", 4242), comm: "ib_write_bw", start: 4242},
		{in: statLine(812, ") x (", 7), comm: ") x (", start: 7},
		{in: "812 ib_write_bw S 1", err: `stat: "812 ib_write_bw S 1": want "pid (comm) state ..."`},
		{in: "812 (x) S 1 2 3", err: "stat: 4 fields after the comm, want at least 20"},
		{in: "812 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 -1", err: `stat: start time "-1" is not a number`},
	} {
		comm, start, err := parseStatStart(c.in)
		if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err || comm != c.comm || start != c.start {
			t.Errorf("parseStatStart(%q) = %q, %d, %v; want %q, %d, %q", c.in, comm, start, err, c.comm, c.start, c.err)
		}
	}
}
