//go:build lab

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// dashPID is the dashboard's pid: the verbscope child of the tmux
// pane's shell (busybox has no pgrep: /proc is read).
func dashPID(t *testing.T, s *tmuxSession) int {
	t.Helper()
	sh := strings.TrimSpace(s.run("display-message", "-p", "-t", s.name, "#{pane_pid}"))
	var pid int
	labkit.WaitFor(t, labkit.Step, "the dashboard process", func() bool {
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, st := range stats {
			b, err := os.ReadFile(st)
			if err != nil {
				continue
			}
			// pid (comm) state ppid ...
			f := strings.Fields(string(b))
			if len(f) > 3 && f[1] == "(verbscope)" && f[3] == sh {
				pid, _ = strconv.Atoi(f[0])
				return true
			}
		}
		return false
	})
	return pid
}

// startDash runs line (which starts the dashboard) in a new tmux
// session with a history file of the test's own, waits for its first
// view (the QP view with --view qp, else the overview) and returns the
// session and the dashboard's pid.
func startDash(t *testing.T, line string) (*tmuxSession, int) {
	t.Helper()
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	s := newTmux(t)
	s.line(line)
	if strings.Contains(line, "--view qp") {
		s.waitLong("QPs [")
	} else {
		s.waitLong("1 ports")
	}
	return s, dashPID(t, s)
}

// TestDashboardLive drives the dashboard on the real rxe0 through tmux,
// with rdma-core's tools as the workload: a pingpong pair appears, its
// QPs reach RTS with their history and vanish when it ends; another
// process's QP moved to ERR is flagged; the shell pane creates a QP that
// shows as this session's; after q nothing of the dashboard is left and
// the terminal is sane.
func TestDashboardLive(t *testing.T) {
	labkit.Clean(t)
	labkit.RaceBinary(t)
	gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
	s, pid := startDash(t, "stty -a > /tmp/stty-before.txt; verbscope dash --view qp --interval 500ms; echo status=$?")

	// The pair runs until the test ends it (a short run could be over
	// before the screen is read).
	srv := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000")
	labkit.WaitFor(t, labkit.Step, "the server's QP in INIT", func() bool {
		st := qpStates(t, srv.PID())
		return len(st) == 1 && st[0] == "INIT"
	})
	s.waitLong("INIT")
	cli := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000", ip)
	defer srv.Kill()
	defer cli.Kill()
	release := labkit.Throttle(t, 100*time.Millisecond, time.Second, srv, cli)
	s.key("/")
	s.keys("-l", "type=RC comm=ibv_rc_pingpong state=RTS")
	s.waitLong("</type=RC comm=ibv_rc_pingpong state=RTS>") // the filter applies as it is typed
	s.key("Enter")
	scr := s.waitRE(`QPs \[2/\d+\] </type=RC comm=ibv_rc_pingpong state=RTS>`)
	if strings.Count(scr, "ibv_rc_pingpong") < 2 {
		t.Errorf("the pair's two QPs in RTS should be listed:\n%s", scr)
	}
	s.key("Enter") // the first one's detail
	scr = s.waitLong("state history")
	hist := historyStates(scr)
	if len(hist) < 2 || hist[len(hist)-1] != "RTS" || !oneOf(hist[0], "RESET", "INIT", "RTR") {
		t.Errorf("a pingpong QP's history should go from RESET/INIT/RTR to RTS, got %v:\n%s", hist, scr)
	}
	// Each Escape waits for the one before to show: two read together
	// are one Alt+Escape.
	s.key("Escape")
	waitScreenLacks(t, s, "state history")
	s.key("Escape") // clears the filter
	release()
	cli.Kill()
	srv.Kill()
	labkit.WaitFor(t, labkit.Step, "the pingpong QPs to vanish from the view", func() bool {
		return !strings.Contains(s.screen(), "ibv_rc_pingpong")
	})

	// Another process's QP in ERR.
	bad := exec.Command("verbscope", "shell")
	in, err := bad.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bad.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); bad.Wait() }()
	in.Write([]byte("open; pd; cq; qp type=rc; next qp1; modify qp1 err\n"))
	scr = s.waitLong("in ERR/SQE")
	if !regexp.MustCompile(`(?m)^!.*ERR.*verbscope`).MatchString(scr) {
		t.Errorf("the QP in ERR should be marked ! in the QP view:\n%s", scr)
	}

	// The shell pane: its QP shows as this session's.
	s.key("Tab")
	s.keys("-l", "open; pd; cq; qp cq=cq1")
	s.key("Enter")
	s.waitLong("qp1 = RC QP number")
	scr = s.waitLong("◆")
	if !regexp.MustCompile(`◆\s*rxe0/[-1]\s+\d+\s.*RESET`).MatchString(scr) {
		t.Errorf("the pane's QP should show in the QP view marked as ours:\n%s", scr)
	}
	ids := threadsOf(pid)
	if n := objectsOf(t, ids); n != 3 {
		t.Errorf("%d objects of the dashboard in rdma resource show, want the pane's pd, cq and qp", n)
	}
	s.key("Escape")
	s.waitLong("(tab to type)") // the pane let go of the keys
	s.key("q")
	s.waitLong("status=0")
	if n := objectsOf(t, ids); n != 0 {
		t.Errorf("%d objects of the dashboard left after q", n)
	}
	s.sttyUnchanged("the dashboard")
}

// TestDashboardSIGTERM: SIGTERM while the pane's shell holds objects
// ends the dashboard at once; the terminal is restored and every object
// is destroyed. Without trace: loading its programs, race-built under
// TCG, took most of the test's minute of both vCPUs, and trace's
// teardown is TestDashboardLive's and TestDashboardTracedDetail's.
func TestDashboardSIGTERM(t *testing.T) {
	labkit.Clean(t)
	labkit.RaceBinary(t)
	s, pid := startDash(t, "stty -a > /tmp/stty-before.txt; verbscope dash --view qp --no-trace; echo status=$?")
	s.key("Tab")
	s.keys("-l", "open; pd; cq; qp cq=cq1")
	s.key("Enter")
	s.waitLong("qp1 = RC QP number")
	ids := threadsOf(pid)
	if n := objectsOf(t, ids); n != 3 {
		t.Errorf("%d objects of the dashboard before SIGTERM, want 3", n)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	scr := s.waitRE(`(?m)^status=\d+`) // the echo's output, not the command line
	if !strings.Contains(scr, "\nstatus=130") {
		t.Errorf("SIGTERM should end the dashboard with status 130:\n%s", scr)
	}
	if n := objectsOf(t, ids); n != 0 {
		t.Errorf("%d objects of the dashboard left after SIGTERM", n)
	}
	s.sttyUnchanged("SIGTERM")
}

// waitLong waits for the dashboard's first screen: starting a 25 MB
// binary over 9p under TCG can take many seconds on a loaded host.
func (s *tmuxSession) waitLong(want string) string {
	s.t.Helper()
	deadline := time.Now().Add(labkit.Screen)
	for !strings.Contains(s.screen(), want) {
		if time.Now().After(deadline) {
			s.t.Fatalf("the dashboard never showed %q; the screen:\n%s", want, s.screen())
		}
		time.Sleep(250 * time.Millisecond)
	}
	return s.screen()
}

// waitScreenLacks waits until the dashboard's screen no longer shows text.
func waitScreenLacks(t *testing.T, s *tmuxSession, text string) {
	t.Helper()
	labkit.WaitFor(t, labkit.Screen, "the dashboard to stop showing "+text, func() bool {
		return !strings.Contains(s.screen(), text)
	})
}

// waitRE waits until the screen matches re.
func (s *tmuxSession) waitRE(re string) string {
	s.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.Now().Add(labkit.Screen)
	for {
		scr := s.screen()
		if r.MatchString(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never matched %s; it shows:\n%s", re, scr)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// historyStates reads the states of the detail's history lines.
func historyStates(scr string) []string {
	var out []string
	re := regexp.MustCompile(`^\s+\d\d:\d\d:\d\d\.\d{3}\s+(RESET|INIT|RTR|RTS|SQD|SQE|ERR)\b`)
	in := false
	for _, l := range strings.Split(scr, "\n") {
		if strings.Contains(l, "state history") {
			in = true
			continue
		}
		if m := re.FindStringSubmatch(l); in && m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

func oneOf(s string, set ...string) bool {
	for _, x := range set {
		if s == x {
			return true
		}
	}
	return false
}

// TestDashboardTerminal: NO_COLOR draws no colour escapes, and at 80x24
// every line fits.
func TestDashboardTerminal(t *testing.T) {
	labkit.Clean(t)
	s := newTmux(t)
	s.run("resize-window", "-t", s.name, "-x", "80", "-y", "24")
	s.line("NO_COLOR=1 verbscope dash; echo status=$?")
	scr := s.waitLong("1 ports") // the overview, the first view
	lines := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	if len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	for i, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d is %d wide on an 80-column terminal: %q", i, n, l)
		}
	}
	esc := s.run("capture-pane", "-p", "-e", "-t", s.name)
	if m := regexp.MustCompile(`\x1b\[[0-9;]*(3[0-8]|4[0-8]|9[0-7]|10[0-7])[;m]`).FindString(esc); m != "" {
		t.Errorf("NO_COLOR output has a colour escape %q", m)
	}
	if !strings.Contains(esc, "\x1b[7m") && !regexp.MustCompile(`\x1b\[[0-9;]*;7m`).MatchString(esc) {
		t.Errorf("NO_COLOR lost the reverse video of the selection:\n%q", esc)
	}
	s.key("q")
	s.waitLong("status=0")
}
