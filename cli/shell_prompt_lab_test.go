//go:build lab

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// tmuxSession drives a terminal program through tmux in the lab VM.
type tmuxSession struct {
	t    *testing.T
	name string
}

func newTmux(t *testing.T) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("verbscope"); err != nil {
		t.Fatalf("verbscope is not on PATH in the lab: %v", err)
	}
	s := &tmuxSession{t: t, name: "vs"}
	s.run("new-session", "-d", "-s", s.name, "-x", "120", "-y", "40", "/bin/sh")
	t.Cleanup(func() { exec.Command("tmux", "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	// The lab sets LANG=C.UTF-8, which tmux insists on.
	cmd := exec.Command("tmux", args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) keys(keys ...string) {
	s.run(append([]string{"send-keys", "-t", s.name}, keys...)...)
}

// key presses one key and lets the program read it alone: go-prompt
// recognizes control keys only when they arrive one per read.
func (s *tmuxSession) key(k string) {
	s.keys(k)
	time.Sleep(150 * time.Millisecond)
}

// line types text, then Enter on its own, as a person would: go-prompt
// treats a newline arriving in the same read as the text as pasted input.
func (s *tmuxSession) line(text string) {
	s.keys("-l", text)
	time.Sleep(150 * time.Millisecond)
	s.keys("Enter")
}

func (s *tmuxSession) screen() string { return s.run("capture-pane", "-p", "-t", s.name) }

// waitFor polls the screen until it contains want.
func (s *tmuxSession) waitFor(want string) string {
	s.t.Helper()
	// Generous: the guest is emulated (TCG) on a shared, loaded host.
	deadline := time.Now().Add(labkit.Screen)
	for {
		scr := s.screen()
		if strings.Contains(scr, want) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q; it shows:\n%s", want, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestInteractiveShell types into `verbscope shell` on a real terminal:
// completion offers rts after `modify qp1 `, the history recalls the last
// line, and the terminal is sane after exit.
func TestInteractiveShell(t *testing.T) {
	labkit.Clean(t)
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	s := newTmux(t)
	s.line("stty -a > /tmp/stty-before.txt; XDG_STATE_HOME=" + os.Getenv("XDG_STATE_HOME") + " verbscope shell")
	s.waitFor("verbs>") // capture-pane drops trailing spaces
	s.line("open; pd; cq; qp type=rc")
	s.waitFor("qp1 = RC QP number")
	s.keys("-l", "modify qp1 ")
	time.Sleep(150 * time.Millisecond)
	scr := s.waitFor("rts")
	if !strings.Contains(scr, "init") {
		t.Errorf("the completion popup lacks init:\n%s", scr)
	}
	s.key("C-u") // clear the line
	s.line("ls")
	s.waitFor("└─")
	s.key("Up")
	scr = s.screen()
	prompt := ""
	for _, l := range strings.Split(scr, "\n") {
		if strings.HasPrefix(l, "verbs>") {
			prompt = strings.TrimSpace(l) // the last prompt line is the live one
		}
	}
	if prompt != "verbs> ls" {
		t.Errorf("Up did not recall `ls`; the prompt line is %q", prompt)
	}
	s.key("C-u")
	s.key("C-d")
	s.waitFor("# ") // back at the busybox prompt
	s.sttyUnchanged("the shell")
	hist, err := os.ReadFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "verbscope", "history"))
	if err != nil || !strings.Contains(string(hist), "open; pd; cq; qp type=rc\nls\n") {
		t.Errorf("history file: %q, %v", hist, err)
	}
}

// TestInteractiveShellSIGTERM ends the interactive shell with SIGTERM,
// once while a command waits and once at the prompt: either way it exits
// at once, the terminal is sane and no verbs object of it is left.
func TestInteractiveShellSIGTERM(t *testing.T) {
	labkit.Clean(t)
	for _, tc := range []struct {
		name, last string
	}{
		{"during a command", "wait cq1 timeout=10m"},
		{"at the prompt", "ls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Setenv("XDG_STATE_HOME", t.TempDir())
			s := newTmux(t)
			s.line("stty -a > /tmp/stty-before.txt; verbscope shell; echo status=$?")
			s.waitFor("verbs>")
			s.line("open; pd; channel; cq channel=ch1; mr; qp; qp; connect qp1 qp2")
			s.waitFor("are connected and in RTS")
			s.line(tc.last)
			time.Sleep(time.Second)
			pid, err := exec.Command("pidof", "verbscope").Output()
			if err != nil {
				t.Fatalf("pidof verbscope: %v", err)
			}
			ids := threadsOf(atoi(t, strings.Fields(string(pid))[0]))
			if n := objectsOf(t, ids); n != 5 {
				t.Errorf("%d objects of the shell before SIGTERM, want 5", n)
			}
			exec.Command("kill", "-TERM", strings.TrimSpace(string(pid))).Run()
			scr := s.waitFor("status=143")
			if !strings.Contains(scr, "terminated; all verbs objects destroyed") {
				t.Errorf("no word of the termination:\n%s", scr)
			}
			if n := objectsOf(t, ids); n != 0 {
				t.Errorf("%d objects of the shell left after SIGTERM", n)
			}
			s.sttyUnchanged("SIGTERM")
		})
	}
}

// sttyUnchanged reads the terminal's settings again at the prompt and
// compares them with what the test saved in /tmp/stty-before.txt
// before starting the program: a program that leaves raw mode or no
// echo behind fails, whatever way it ended.
func (s *tmuxSession) sttyUnchanged(what string) {
	s.t.Helper()
	s.line("stty -a > /tmp/stty-after.txt; echo done-$((1+1))")
	s.waitFor("done-2")
	before, _ := os.ReadFile("/tmp/stty-before.txt")
	after, _ := os.ReadFile("/tmp/stty-after.txt")
	if string(before) != string(after) || !strings.Contains(string(after), " icanon") || !strings.Contains(string(after), " echo ") {
		s.t.Errorf("terminal settings changed by %s:\nbefore: %s\nafter:  %s", what, before, after)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPastedLinesRun pastes into `verbscope shell` the way people copy
// from a tutorial: several lines in one write (tmux paste-buffer, which
// sends them with CR as a terminal paste does), and a line with its
// Enter in one send-keys. Each line must run, in order, with no
// continuation ("......") line waiting for another Enter.
func TestPastedLinesRun(t *testing.T) {
	labkit.Clean(t)
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	s := newTmux(t)
	s.line("verbscope shell")
	s.waitFor("verbs>")
	s.run("set-buffer", "open; pd\nls\n")
	s.run("paste-buffer", "-t", s.name)
	scr := s.waitFor("└─ pd1")
	if strings.Contains(scr, "......") {
		t.Errorf("a continuation line after the paste:\n%s", scr)
	}
	for _, want := range []string{"ctx1 = device", "pd1 = protection domain in ctx1"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the pasted lines did not all run: no %q:\n%s", want, scr)
		}
	}
	s.keys("cq; qp type=rc", "Enter")
	s.waitFor("qp1 = RC QP number")
	s.keys("-l", "diagram qp1\n")
	scr = s.waitFor("qp1 is [RESET]")
	if strings.Contains(scr, "......") {
		t.Errorf("a continuation line after `diagram qp1` and its newline in one write:\n%s", scr)
	}
	s.line("exit")
	s.waitFor("# ")
}
