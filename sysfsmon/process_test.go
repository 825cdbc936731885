package sysfsmon

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseStatusCred(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Cred
		err  string
	}{
		{in: "Name:\tx\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nGroups:\t \nCapEff:\t000001ffffffffff\n", want: Cred{CapEff: 1<<41 - 1}},
		// the effective ids count, not the real ones (a setuid program)
		{in: "Uid:\t1000\t0\t0\t0\nGid:\t100\t27\t27\t27\nGroups:\t4 27 1000\n", want: Cred{UID: 0, GID: 27, Groups: []int{4, 27, 1000}}},
		{in: "Uid:\t1\t2\t3\n Gid:\t0\t0\t0\t0\n", err: "status: Uid: want real, effective, saved and filesystem ids, got 3 fields"},
		{in: "Uid:\t1\t2\t3\t4\n", err: "status: no Uid or Gid line"},
		{in: "Uid:\t1\t2\t3\t4\nGid:\t0\t0\t0\t0\nGroups:\t1 x\n", err: `status: Groups: "x" is not an id`},
		{in: "Uid:\t1\t2\t3\t4\nGid:\t0\t0\t0\t0\nCapEff:\tfoo\n", err: `status: CapEff: strconv.ParseUint: parsing "foo": invalid syntax`},
		{in: "Uid:\t-1\t2\t3\t4\nGid:\t0\t0\t0\t0\n", err: `status: Uid: "-1" is not an id`},
	} {
		got, err := parseStatusCred(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("parseStatusCred(%q): %v, want error %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseStatusCred(%q): %v", c.in, err)
		} else if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("parseStatusCred(%q) (-want +got):\n%s", c.in, diff)
		}
	}
	c := Cred{UID: 1000, GID: 1000, Groups: []int{27}, CapEff: 1 << CapIPCLock}
	if !c.HasCap(CapIPCLock) || c.HasCap(CapDACOverride) || c.HasCap(64) || !c.InGroup(27) || !c.InGroup(1000) || c.InGroup(0) {
		t.Errorf("HasCap/InGroup of %+v", c)
	}
}

func TestParseDriverConf(t *testing.T) {
	got, err := parseDriverConf("# rdma-core\ndriver rxe\n\n  driver\tmlx5  \ndriver a b\nprovider x\ndriver ../evil\n")
	if want := []string{"rxe", "mlx5"}; !cmp.Equal(got, want) {
		t.Errorf("drivers %q, want %q", got, want)
	}
	want := `line 5: "driver a b": want "driver NAME"` + "\n" + `line 6: "provider x": want "driver NAME"` + "\n" + `line 7: "driver ../evil": want "driver NAME"`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	for name, want := range map[string]string{
		"librxe-rdmav34.so": "rxe", "libmlx5-rdmav34.so": "mlx5", "libbnxt_re-rdmav25.so": "bnxt_re",
		"librxe-rdmav34.so.1": "", "librxe.so": "", "rxe-rdmav34.so": "", "lib-rdmav34.so": "", "librxe-rdmavX.so": "", "librxe-rdmav.so": "",
	} {
		if got := parseProviderName(name); got != want {
			t.Errorf("parseProviderName(%q) = %q, want %q", name, got, want)
		}
	}
}

// The live /proc answers for this test's own process and one of its
// threads; a pid that cannot exist is ErrNoProcess.
func TestProcessLive(t *testing.T) {
	f, err := NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	self, err := f.Process(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	comm, _ := os.ReadFile("/proc/self/comm")
	if self.PID != os.Getpid() || self.TGID != os.Getpid() || self.Comm != strings.TrimSpace(string(comm)) || self.Zombie() || self.State == "" {
		t.Errorf("self: %+v", self)
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	threads := 0
	for _, task := range tasks {
		tid, err := strconv.Atoi(task.Name())
		if err != nil || tid == os.Getpid() {
			continue
		}
		th, err := f.Process(tid)
		if err != nil {
			continue // the thread ended meanwhile
		}
		threads++
		if th.TGID != os.Getpid() || th.PID != tid {
			t.Errorf("thread %d: %+v, want tgid %d", tid, th, os.Getpid())
		}
	}
	if threads == 0 {
		t.Error("no thread of the Go runtime besides the main one was read")
	}
	if _, err := f.Process(1 << 30); !errors.Is(err, ErrNoProcess) {
		t.Errorf("Process(2^30): %v, want ErrNoProcess", err)
	}
}

// DevHolders finds descriptors whose link leads into /dev/infiniband;
// others and unreadable fd folders are skipped.
func TestDevHolders(t *testing.T) {
	proc := t.TempDir()
	mk := func(pid, comm string, fds map[string]string) {
		dir := filepath.Join(proc, pid, "fd")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(proc, pid, "comm"), []byte(comm+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for fd, target := range fds {
			if err := os.Symlink(target, filepath.Join(dir, fd)); err != nil {
				t.Fatal(err)
			}
		}
	}
	mk("12", "sleep", map[string]string{"0": "/dev/null", "3": "/dev/infiniband/uverbs0"})
	mk("7", "rping", map[string]string{"4": "/dev/infiniband/rdma_cm", "10": "/dev/infiniband/uverbs1", "5": "socket:[123]"})
	mk("self", "x", map[string]string{"3": "/dev/infiniband/uverbs0"}) // not a pid folder
	f, err := NewFS(t.TempDir(), proc)
	if err != nil {
		t.Fatal(err)
	}
	got, unreadable, err := f.DevHolders()
	if err != nil {
		t.Fatal(err)
	}
	want := []FDHolder{
		{PID: 7, Comm: "rping", FD: 4, Path: "/dev/infiniband/rdma_cm"},
		{PID: 7, Comm: "rping", FD: 10, Path: "/dev/infiniband/uverbs1"},
		{PID: 12, Comm: "sleep", FD: 3, Path: "/dev/infiniband/uverbs0"},
	}
	if diff := cmp.Diff(want, got); diff != "" || unreadable != 0 {
		t.Errorf("holders (-want +got):\n%s\nunreadable %d", diff, unreadable)
	}
}
