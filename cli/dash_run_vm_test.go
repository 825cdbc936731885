//go:build vm

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMakeRunOpensTheDashboard does what the README's first line says,
// as a newcomer would on this RDMA-less host: `make run` in a terminal
// (tmux) boots the lab VM and opens the dashboard there, with the
// labelled demo alive (the pingpong pair's QPs, one QP in ERR); q quits
// the dashboard, the VM powers off, and no qemu is left.
func TestMakeRunOpensTheDashboard(t *testing.T) {
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		entries, _ := os.ReadDir("/sys/class/infiniband")
		if len(entries) > 0 {
			t.Fatal("this host has RDMA devices: make run would not use the lab VM, which this test is about")
		}
	}
	root, _ := filepath.Abs("..")
	name := "vsrun"
	tmux := func(args ...string) string {
		cmd := exec.Command("tmux", args...)
		cmd.Env = append(os.Environ(), "TERM=xterm-256color", "LANG=C.UTF-8")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tmux("-L", name, "new-session", "-d", "-s", name, "-x", "120", "-y", "40", "-c", root, "/bin/sh")
	defer exec.Command("tmux", "-L", name, "kill-server").Run()
	tmux("-L", name, "send-keys", "-t", name, "-l", "make -s run; echo run-status=$?")
	tmux("-L", name, "send-keys", "-t", name, "Enter")
	screen := func() string { return tmux("-L", name, "capture-pane", "-p", "-t", name) }
	waitFor := func(want string, d time.Duration) string {
		t.Helper()
		deadline := time.Now().Add(d)
		for {
			s := screen()
			if strings.Contains(s, want) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q; it shows:\n%s", want, s)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitFor("demo: pingpong pair", 5*time.Minute)
	waitFor("2 QPs", time.Minute) // it opens on the overview
	waitFor("ibv_rc_pingpong", 2*time.Minute)
	waitFor("in ERR/SQE", time.Minute)
	waitFor("rxe0 1:ACTIVE", time.Minute) // the header, once sysfs was read
	shell := strings.TrimSpace(tmux("-L", name, "display-message", "-p", "-t", name, "#{pane_pid}"))
	qemus := descendants(t, shell, "qemu-system")
	if len(qemus) == 0 {
		t.Fatal("make run started no qemu under the terminal's shell")
	}
	tmux("-L", name, "send-keys", "-t", name, "q")
	waitFor("run-status=0", 2*time.Minute)
	for _, pid := range qemus {
		if _, err := os.Stat("/proc/" + pid); err == nil {
			t.Errorf("qemu %s is still running after the dashboard quit", pid)
		}
	}
}

// descendants lists the pids under root whose command starts with prefix.
func descendants(t *testing.T, root, prefix string) []string {
	t.Helper()
	out, err := exec.Command("ps", "-e", "-o", "pid=,ppid=,comm=").Output()
	if err != nil {
		t.Fatal(err)
	}
	children := map[string][]string{}
	comm := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 3 {
			children[f[1]] = append(children[f[1]], f[0])
			comm[f[0]] = f[2]
		}
	}
	var found []string
	todo := []string{root}
	for len(todo) > 0 {
		p := todo[0]
		todo = todo[1:]
		for _, c := range children[p] {
			if strings.HasPrefix(comm[c], prefix) {
				found = append(found, c)
			}
			todo = append(todo, c)
		}
	}
	return found
}

// On this host, which has no RDMA, the dashboard says why and offers the
// lab; "n" declines and exits 1.
func TestDashboardWithoutRDMA(t *testing.T) {
	if entries, _ := os.ReadDir("/sys/class/infiniband"); len(entries) > 0 {
		t.Fatal("this host has RDMA devices; the test is about a host without")
	}
	bin := filepath.Join(t.TempDir(), "verbscope")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	name := "vsnordma"
	tmux := func(args ...string) string {
		cmd := exec.Command("tmux", append([]string{"-L", name}, args...)...)
		cmd.Env = append(os.Environ(), "TERM=xterm-256color", "LANG=C.UTF-8")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	tmux("new-session", "-d", "-s", name, "-x", "120", "-y", "30", "/bin/sh")
	defer exec.Command("tmux", "-L", name, "kill-server").Run()
	tmux("send-keys", "-t", name, "-l", bin+" dash; echo status=$?")
	tmux("send-keys", "-t", name, "Enter")
	deadline := time.Now().Add(3 * time.Minute)
	for !strings.Contains(tmux("capture-pane", "-p", "-t", name), "[Y/n]") {
		if time.Now().After(deadline) {
			t.Fatalf("no offer of the lab:\n%s", tmux("capture-pane", "-p", "-t", name))
		}
		time.Sleep(100 * time.Millisecond)
	}
	tmux("send-keys", "-t", name, "n", "Enter")
	for !strings.Contains(tmux("capture-pane", "-p", "-t", name), "status=") {
		if time.Now().After(deadline) {
			t.Fatal("the dashboard did not exit after n")
		}
		time.Sleep(100 * time.Millisecond)
	}
	scr := tmux("capture-pane", "-p", "-t", name)
	for _, want := range []string{"this host has no RDMA to show", "ib_core is not loaded", "verbscope lab -i -- verbscope dash", "status=1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
}
