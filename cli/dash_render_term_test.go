//go:build lab || vm

package cli

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// renderSettle bounds how long a step may take to reach the screen. In
// the TCG guest a key's round trip is up to 0.7 s and a refresh's about
// as long; the longest step, a 20-key filter typed at once, takes up to
// 15 s: 45 s is 3x that.
const renderSettle = 45 * time.Second

// renderInterval is the dashboard's refresh interval in the render
// test: the screen is compared between refreshes, and each takes up to
// a second to draw in the guest.
const renderInterval = "3s"

// typingAt tells whether a frame's footer is the line being typed after
// prompt (':' or '/') rather than the key hints, which start with ':'
// too.
func typingAt(frame []string, prompt string) bool {
	if len(frame) == 0 {
		return false
	}
	last := frame[len(frame)-1]
	return strings.HasPrefix(last, prompt) && !strings.HasPrefix(last, ": go to a view")
}

// renderTerm is a terminal the dashboard runs in, as the render test
// drives and reads it.
type renderTerm interface {
	// screen is the text the terminal shows.
	screen() string
	// press sends one key: Enter, Escape, Tab, or one printable character.
	press(key string)
	// typeText sends text as typed.
	typeText(s string)
	resize(w, h int)
	// waitFor waits for the dashboard's first screen.
	waitFor(text string)
}

// waitForText polls screen until it shows text: starting a 25 MB
// binary over 9p under TCG takes up to 40 s on a loaded host.
func waitForText(t *testing.T, screen func() string, text string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(screen(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("the dashboard never showed %q; the screen:\n%s", text, screen())
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// screenIsFrame waits until the dashboard's newest frame shows the step
// done (done nil: at once) and the terminal shows that frame; past
// renderSettle it fails with the lines that differ. The frame is read
// before and after the screen, and only a screen read while the frame
// stood still counts: the dashboard keeps drawing while it is read.
func screenIsFrame(t *testing.T, rt renderTerm, frame, step string, done func([]string) bool) {
	t.Helper()
	read := func() []string {
		b, _ := os.ReadFile(frame)
		return screenLines(string(b))
	}
	deadline := time.Now().Add(renderSettle)
	var want, got []string
	for {
		want = read()
		got = screenLines(rt.screen())
		if len(want) > 0 && (done == nil || done(want)) && cmp.Equal(want, got) && cmp.Equal(want, read()) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if done != nil && !done(want) {
		t.Errorf("after %s: the dashboard never drew the step done within %v; its frame:\n%s", step, renderSettle, strings.Join(want, "\n"))
		return
	}
	n := 0
	for i := 0; i < max(len(want), len(got)); i++ {
		if i >= len(want) || i >= len(got) || want[i] != got[i] {
			n++
		}
	}
	t.Errorf("after %s: %d lines on screen differ from the dashboard's frame (-frame +screen):\n%s", step, n, cmp.Diff(want, got))
}

// screenLines is a screen's text as lines without trailing blanks, and
// without the blank lines at the bottom (terminals do not say whether a
// blank cell was ever written).
func screenLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// tmuxAs is a program alone in a tmux pane on a server of its own.
type tmuxAs struct {
	t    *testing.T
	sock string
}

// startTmux runs cmd (sh syntax) alone in a w×h tmux pane whose TERM is
// term, on a server named sock that the test's cleanup kills.
func startTmux(t *testing.T, sock, term, cmd string, w, h int) *tmuxAs {
	s := &tmuxAs{t: t, sock: sock}
	s.tmux("-f", "/dev/null", "start-server", ";", "set", "-g", "default-terminal", term, ";",
		"set", "-g", "status", "off", ";",
		"new-session", "-d", "-s", "vs", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h), cmd)
	t.Cleanup(func() {
		if t.Failed() {
			// What the screen showed when the test failed: a wait
			// that timed out says only what it waited for.
			out, _ := exec.Command("tmux", "-L", s.sock, "capture-pane", "-p", "-t", "vs").CombinedOutput()
			t.Logf("the screen at the end (tmux %s):\n%s", s.sock, out)
		}
		exec.Command("tmux", "-L", s.sock, "kill-server").Run()
	})
	return s
}

func (s *tmuxAs) tmux(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-L", s.sock}, args...)...)
	// tmux wants a UTF-8 locale (the lab sets LANG=C.UTF-8) and a TERM of
	// its own client's; the pane's TERM is default-terminal.
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxAs) screen() string { return s.tmux("capture-pane", "-p", "-t", "vs") }

func (s *tmuxAs) waitFor(text string) { s.t.Helper(); waitForText(s.t, s.screen, text) }

// press waits a moment after the key: Bubble Tea reads an Escape
// followed at once by another key as alt+key.
func (s *tmuxAs) press(key string) {
	if len(key) == 1 {
		s.tmux("send-keys", "-t", "vs", "-l", key)
	} else {
		s.tmux("send-keys", "-t", "vs", key)
	}
	time.Sleep(300 * time.Millisecond)
}

func (s *tmuxAs) typeText(text string) {
	s.tmux("send-keys", "-t", "vs", "-l", "--", text) // "--": text may begin with '-' (-40s)
	time.Sleep(300 * time.Millisecond)
}

func (s *tmuxAs) resize(w, h int) {
	s.tmux("resize-window", "-t", "vs", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h))
}
