//go:build lab

package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/syncio"
	"github.com/verbscope/verbscope/learn"
)

// learnRun runs verbscope learn to its end with stdin and a state
// directory of the test's, and returns its output and exit status,
// checking with rdma resource show that none of its objects is left.
func learnRun(t *testing.T, state, stdin string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), labkit.Run)
	defer cancel()
	cmd := exec.CommandContext(ctx, "verbscope", append([]string{"learn", "--dev", labkit.Env(t, "LAB_DEV")}, args...)...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("verbscope learn %v: %v\n%s", args, err, out)
	}
	if n := objectsOf(t, []string{strconv.Itoa(cmd.Process.Pid)}); n != 0 {
		t.Errorf("verbscope learn %v left %d verbs objects in rdma resource show", args, n)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestLearn: every built-in lesson's solution passes its checks on rxe0;
// a pack with a broken solution fails naming the step; a step done by
// another program's end passes while the learner types nothing; lesson 2 in the
// line shell takes the deliberate RESET→RTR mistake as the lesson, shows
// the hint, advances on the fix, and resumes after a quit mid-lesson.
func TestLearn(t *testing.T) {
	labkit.Clean(t)
	state := t.TempDir()
	t.Run("check the course", func(t *testing.T) {
		out, code := learnRun(t, state, "", "--check")
		lessons, err := learn.Course()
		if err != nil {
			t.Fatal(err)
		}
		steps := 0
		for _, l := range lessons {
			steps += len(l.Steps)
		}
		if code != 0 || strings.Count(out, ": ok\n") != steps || strings.Contains(out, "FAILED") {
			t.Errorf("learn --check: exit %d, want 0 and %d steps ok:\n%s", code, steps, out)
		}
	})
	t.Run("a broken pack", func(t *testing.T) {
		pack := t.TempDir()
		lesson := "# Broken\nIntro.\n## Open\nOpen.\n```solution\nopen\n```\n```check\nexpect object ctx count=1\n```\n" +
			"## A QP in INIT\nThe solution forgets the modify.\n```solution\npd; cq; qp type=rc cq=cq1\n```\n```check\nexpect qp1 state=INIT\n```\n"
		if err := os.WriteFile(filepath.Join(pack, "01-broken.md"), []byte(lesson), 0o644); err != nil {
			t.Fatal(err)
		}
		out, code := learnRun(t, state, "", "--check", pack)
		if code != 1 || !strings.Contains(out, `lesson 1 step 2 "A QP in INIT": expect qp1 state=INIT (line 17): qp1: state=RESET`) {
			t.Errorf("a broken pack: exit %d, want 1 and the step named:\n%s", code, out)
		}
	})
	t.Run("a pack's programs not allowed", func(t *testing.T) {
		// Without --allow-programs (and no terminal to ask at) a pack
		// whose lesson would run a program is refused before anything
		// runs, the program listed.
		pack, marker := t.TempDir(), filepath.Join(t.TempDir(), "ran")
		lesson := "# Peer\nA program runs.\n```background\ntouch " + marker + "\n```\n## Open\nOpen.\n```solution\nopen\n```\n```check\nexpect object ctx count=1\n```\n"
		if err := os.WriteFile(filepath.Join(pack, "01-peer.md"), []byte(lesson), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"--check", pack}, {"--plain", "--dir", pack}} {
			out, code := learnRun(t, state, "open\n", args...)
			if code == 0 || !strings.Contains(out, "lesson 1 (01-peer.md): touch "+marker) || !strings.Contains(out, "--allow-programs") {
				t.Errorf("learn %v without --allow-programs: exit %d, want a refusal listing the program:\n%s", args, code, out)
			}
		}
		if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the pack's program ran without being allowed (stat: %v)", err)
		}
	})
	t.Run("a step done between commands", func(t *testing.T) {
		// A program beside the shell holds a QP for a few seconds; the
		// second step is done when it ends, while the learner types
		// nothing: the line shell says so before stdin closes.
		pack := t.TempDir()
		lesson := "# Between commands\nA program holds a QP.\n```background\n" +
			`verbscope shell --dev {dev} -c "open; pd; cq; qp type=rc cq=cq1; poll cq1 wait=5s"` + "\n```\n" +
			"## Its QP\nOpen.\n```solution\nopen\n```\n```check\nexpect object ctx count=1\nexpect object qp count=1 owner=verbscope\n```\n" +
			"## It ends\nWait.\n```solution\nls\n```\n```check\nexpect object qp count=0 owner=verbscope\n```\n"
		if err := os.WriteFile(filepath.Join(pack, "01-between.md"), []byte(lesson), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("verbscope", "learn", "--plain", "--dev", labkit.Env(t, "LAB_DEV"), "--dir", pack, "--allow-programs")
		cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
		out := syncio.NewBuffer()
		cmd.Stdout, cmd.Stderr = out, out
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		if _, err := stdin.Write([]byte("open\n")); err != nil {
			t.Fatal(err)
		}
		labkit.WaitFor(t, labkit.Step, "the second step done with no command typed", func() bool {
			return strings.Contains(out.String(), "✓ It ends")
		})
		stdin.Close()
		cmd.Wait()
		if got := out.String(); !strings.Contains(got, "✓ Its QP") || !strings.Contains(got, "the course is complete") {
			t.Errorf("the course between commands:\n%s", got)
		}
		if n := objectsOf(t, []string{strconv.Itoa(cmd.Process.Pid)}); n != 0 {
			t.Errorf("verbscope learn left %d verbs objects", n)
		}
	})
	t.Run("lesson 2 with the mistake, then resumed", func(t *testing.T) {
		out, _ := learnRun(t, state, "open; pd; cq size=16; qp type=rc cq=cq1; qp type=rc cq=cq1\nmodify qp1 rtr\n:hint\nmodify qp1 init port=1\n"+
			"modify qp1 init port=1 pkey_index=0 access_flags=remote_write\n", "2", "--plain")
		for _, want := range []string{
			"Lesson 2: The QP state machine",
			"RESET→RTR is not a transition",
			"✓ Try the shortcut: RESET→RTR",
			"hint: Type `modify qp1 init port=1`",
			"✓ The mask: a missing bit",
			"✓ RESET→INIT, complete",
			"Step 5 of 7: INIT→RTR needs the peer",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("lesson 2 lacks %q:\n%s", want, out)
			}
		}
		out, _ = learnRun(t, state, "next qp1 peer=qp2\nnext qp1\n", "--plain")
		for _, want := range []string{"resumed: steps 1 to 4 were replayed", "✓ INIT→RTR needs the peer", "✓ RTR→RTS", "Step 7 of 7: The other side"} {
			if !strings.Contains(out, want) {
				t.Errorf("the resumed lesson lacks %q:\n%s", want, out)
			}
		}
		p, err := learn.LoadProgress(filepath.Join(state, "verbscope", "learn.json"))
		if err != nil || p.Lesson != 2 || p.Step != 6 {
			t.Errorf("saved progress %+v %v, want lesson 2 step index 6", p, err)
		}
	})
}

// TestLearnDashboard is lesson 2 as a newcomer takes it in the
// dashboard, through tmux: the RESET→RTR mistake refused and the lesson
// advancing on it, F2's hint, the fix, then q mid-lesson; started again,
// the course resumes at that step. Nothing of either run is left in
// rdma resource show.
func TestLearnDashboard(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	start := time.Now()
	mark := func(what string) { t.Logf("%6.1fs %s", time.Since(start).Seconds(), what) }
	// The course opens on the QP view with the lesson, not the overview
	// startDash waits for.
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	s := newTmux(t)
	s.line("verbscope learn 2 --dev " + dev)
	s.waitLong("step 1 of 7")
	pid := dashPID(t, s)
	mark("the dashboard shows lesson 2")
	pasteLine(s, "open; pd; cq size=16; qp type=rc cq=cq1; qp type=rc cq=cq1")
	s.waitLong("step 2 of 7")
	mark("step 1 done")
	pasteLine(s, "modify qp1 rtr")
	s.waitLong("step 3 of 7")
	mark("the refusal, step 2 done")
	if scr := s.screen(); !strings.Contains(scr, "RESET→RTR") || !strings.Contains(scr, "✓ Try the shortcut") {
		t.Errorf("the refusal and the step done are not shown:\n%s", scr)
	}
	s.key("F2")
	s.waitLong("hint: Type")
	mark("the hint")
	pasteLine(s, "modify qp1 init port=1")
	s.waitLong("step 4 of 7")
	pasteLine(s, "modify qp1 init port=1 pkey_index=0 access_flags=remote_write")
	s.waitLong("step 5 of 7")
	mark("the fix, step 4 done")
	// The state diagram of the step's QP, where the kernel has it now.
	if scr := s.screen(); !strings.Contains(scr, "[INIT]") {
		t.Errorf("the lesson pane does not draw qp1 in INIT on the state machine:\n%s", scr)
	}
	quitLearn(t, s, pid)
	mark("quit")

	s.line("verbscope learn --dev " + dev)
	s.waitLong("step 5 of 7 · INIT→RTR needs the peer")
	mark("resumed")
	quitLearn(t, s, dashPID(t, s))
	mark("quit again")
}

// quitLearn leaves the course with esc, q and checks that its process
// ended and left no verbs object.
func quitLearn(t *testing.T, s *tmuxSession, pid int) {
	t.Helper()
	ids := threadsOf(pid)
	// q waits for esc to show (the pane let go of the keys): an esc
	// and a q read together are one Alt+q, and the course stays.
	s.key("Escape")
	s.waitLong("(tab to type)")
	s.key("q")
	labkit.WaitFor(t, labkit.Step, "verbscope learn to exit", func() bool {
		_, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid)))
		return err != nil
	})
	if n := objectsOf(t, ids); n != 0 {
		t.Errorf("%d verbs objects of verbscope learn are left after q", n)
	}
}

// pasteLine gives the dashboard a line as a terminal's bracketed paste:
// the shell pane runs it as if typed and entered, in one message rather
// than a keystroke each (under TCG with the race detector a keystroke
// costs the dashboard a whole frame).
func pasteLine(s *tmuxSession, line string) {
	s.run("set-buffer", "--", line+"\n")
	s.run("paste-buffer", "-p", "-t", s.name)
}
