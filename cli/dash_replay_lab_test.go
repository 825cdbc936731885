//go:build lab

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestDashReplayLab records a few seconds of rxe0 with `verbscope record`
// (no trace: fast) while a verbs shell moves its QP to ERR, then plays
// the file in the dashboard through tmux: the header says REPLAY and the
// recorded host, and `}` steps from event to event until the QP view
// shows the QP in ERR; `[` steps back one reading; with the filter
// /state=ERR one `}` from the start lands on that reading; the irq view
// shows the recorded IRQ reading. The shell pane shows the shell's
// recorded session up to the time shown, read-only: its commands at the
// move to ERR and the modify's answer at the end, none at the start.
func TestDashReplayLab(t *testing.T) {
	labkit.Clean(t)
	path := filepath.Join(t.TempDir(), "replay.vsrec")
	recorder := labkit.Start(t, "verbscope", "record", "-o", path, "--interval", "500ms", "--no-trace")
	labkit.WaitFor(t, labkit.Step, "the recorder started", func() bool {
		return strings.Contains(recorder.Output(), "recording to")
	})
	export := recordHas(path)
	labkit.WaitFor(t, labkit.Step, "a reading in the file", func() bool { return export(`"lifetimes":[`) })
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; channel; cq channel=ch1; qp type=rc cq=cq1; next qp1; modify qp1 err; wait cq1 timeout=10m")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("recorder:\n%s\nshell:\n%s", recorder.Output(), sh.Output())
		}
	})
	labkit.WaitFor(t, labkit.Run, "the recorder sees a QP in ERR", func() bool { return export(`"state":"ERR"`) })
	sh.Signal(syscall.SIGTERM)
	sh.Exit(t, labkit.Run)
	time.Sleep(time.Second) // a reading or two of the QP gone
	recorder.Signal(syscall.SIGINT)
	if code := recorder.Exit(t, labkit.Step); code != 0 {
		t.Fatalf("record stopped by SIGINT: status %d\n%s", code, recorder.Output())
	}
	s := startTmux(t, "replay", "xterm-256color", "verbscope dash --replay "+path+" --at start", 140, 40)
	s.waitFor("REPLAY ")
	s.waitFor(") paused (space plays)") // the first frame is drawn
	if !strings.Contains(s.screen(), "(1/") {
		t.Errorf("the replay should start at the first reading:\n%s", s.screen())
	}
	// Each } waits for the reading it moves to: a } pressed before the
	// last one's reading is drawn (a loaded host) would step past the
	// move to ERR to the QP's vanishing, still drawn in ERR.
	for !strings.Contains(aboveShell(s.screen()), " ERR ") {
		before := replayIndex.FindString(s.screen())
		s.press("}")
		labkit.WaitFor(t, labkit.Screen, "} to move on from reading "+before+" towards the QP in ERR", func() bool {
			return replayIndex.FindString(s.screen()) != before
		})
	}
	errAt := replayIndex.FindString(s.screen())
	session := fmt.Sprintf("recorded session of pid %d (script)", sh.PID())
	// pane focuses the pane, a larger share of the screen (ctrl+t), and
	// waits for it to show want.
	pane := func(want ...string) {
		t.Helper()
		s.press("Tab")
		s.press("C-t")
		labkit.WaitFor(t, labkit.Screen, fmt.Sprintf("the shell pane showing %q", want), func() bool {
			scr := s.screen()
			for _, w := range want {
				if !strings.Contains(scr, w) {
					return false
				}
			}
			return strings.Contains(scr, "replay: read-only")
		})
	}
	pane(session, "verbs> next qp1", "verbs> modify qp1 err")
	s.typeText("x")
	s.waitFor("the shell pane is read-only in a replay")
	// esc leaves the pane; the next key waits for it to show (the
	// pane's hints gone): an esc and a "[" read together are the start
	// of an escape sequence, not two keys (a loaded host's fc14 lost
	// the keys after it so).
	s.press("Escape")
	labkit.WaitFor(t, labkit.Screen, "esc to leave the shell pane", func() bool { return !strings.Contains(s.screen(), "PgUp scroll back") })
	before := s.screen()
	s.press("[")
	labkit.WaitFor(t, labkit.Screen, "[ one reading back", func() bool { return s.screen() != before })
	// t jumps to a time written as --at takes it: start is reading 1.
	s.press("t")
	s.waitFor("enter jumps")
	s.typeText("start")
	s.press("Enter")
	labkit.WaitFor(t, labkit.Screen, "t start: the first reading, before the shell's session", func() bool {
		scr := s.screen()
		return strings.Contains(scr, "(1/") && !strings.Contains(scr, session)
	})
	// With a filter, one } passes over the QP's creation and INIT and
	// lands on the reading that first showed it in ERR. The filter is
	// the QP view's: the overview, where the replay opens, has no
	// columns to filter, and a } there stops at any event (fc6: the
	// shell's PD and CQ a reading before its QP).
	s.press(":")
	s.typeText("qp")
	s.press("Enter")
	s.waitFor("QPs [")
	s.press("/")
	s.typeText("state=ERR")
	s.press("Enter")
	s.press("}")
	labkit.WaitFor(t, labkit.Screen, "} with /state=ERR: the move to ERR "+errAt, func() bool {
		return replayIndex.FindString(s.screen()) == errAt
	})
	// The IRQs were recorded too: the irq view says what the live one
	// says of rxe0, not that there is no reading.
	s.press(":")
	s.typeText("irq")
	s.press("Enter")
	s.waitFor("rxe0: software device")
	s.press("t")
	s.waitFor("enter jumps")
	s.typeText("end")
	s.press("Enter")
	pane(session, "qp1 is now ERR")
	s.press("Escape")
	labkit.WaitFor(t, labkit.Screen, "esc to leave the shell pane", func() bool { return !strings.Contains(s.screen(), "PgUp scroll back") })
	s.press("q")
}

// aboveShell is the screen above the shell pane: the pane's recorded
// answer "qp1 is now ERR" is not the QP view's row.
func aboveShell(screen string) string {
	if i := strings.Index(screen, "── shell"); i >= 0 {
		return screen[:i]
	}
	return screen
}

// replayIndex finds the header's place among the readings: "(7/".
var replayIndex = regexp.MustCompile(`\(\d+/`)

// TestReplayMatchesLive: while `verbscope record` records, the live
// dashboard's QP view is captured at three chosen moments (one verbs
// shell's QP in RESET; a second's in INIT beside it; a third's in ERR
// beside both); replayed at each moment's time (`t` and the time, as a
// person would type it), the QP view shows the same rows, and the INIT
// QP's detail the same state, owner and PD lines, clock aside.
func TestReplayMatchesLive(t *testing.T) {
	labkit.Clean(t)
	path := filepath.Join(t.TempDir(), "live.vsrec")
	recorder := labkit.Start(t, "verbscope", "record", "-o", path, "--interval", "500ms", "--no-trace")
	labkit.WaitFor(t, labkit.Step, "the recorder started", func() bool { return strings.Contains(recorder.Output(), "recording to") })
	// Without trace, as the recorder: the two read the same way.
	live := startTmux(t, "live", "xterm-256color", "verbscope dash --view qp --no-trace", 160, 40)
	live.waitFor("lqpn")
	hold := "open; pd; channel; cq channel=ch1; qp type=rc cq=cq1; %s wait cq1 timeout=10m"
	steps := []struct{ then, state string }{{"", "RESET"}, {"next qp1;", "INIT"}, {"next qp1; modify qp1 err;", "ERR"}}
	type capture struct {
		at     time.Time
		rows   []string
		detail []string
	}
	var caps []capture
	for _, st := range steps {
		labkit.Start(t, "verbscope", "shell", "-c", fmt.Sprintf(hold, st.then))
		live.waitFor(" " + st.state + " ")
		// Long enough for the recorder's next readings to see it too,
		// and for the moment's second to hold nothing else.
		time.Sleep(3 * time.Second)
		c := capture{at: time.Now(), rows: qpRows(live.screen())}
		if len(c.rows) != len(caps)+1 || !strings.Contains(strings.Join(c.rows, "\n"), " "+st.state+" ") {
			t.Fatalf("live, with %d shells' QPs the last in %s, the QP view's rows are:\n%s\nthe screen:\n%s",
				len(caps)+1, st.state, strings.Join(c.rows, "\n"), live.screen())
		}
		if c.detail = initDetail(live); len(caps) > 0 && len(c.detail) < 2 {
			t.Fatalf("live, the INIT QP's detail has no state and process lines: %q\n%s", c.detail, live.screen())
		}
		caps = append(caps, c)
		time.Sleep(2 * time.Second)
	}
	recorder.Signal(syscall.SIGINT)
	if code := recorder.Exit(t, labkit.Step); code != 0 {
		t.Fatalf("record stopped by SIGINT: status %d\n%s", code, recorder.Output())
	}
	live.press("q")

	rp := startTmux(t, "replay", "xterm-256color", "verbscope dash --replay "+path+" --view qp", 160, 40)
	rp.waitFor(") paused (space plays)")
	for i, c := range caps {
		rp.press("t")
		rp.waitFor("enter jumps")
		at := c.at.Format("15:04:05")
		rp.typeText(at)
		rp.press("Enter")
		var rows []string
		labkit.WaitFor(t, labkit.Screen, "the replayed QP view at "+at, func() bool {
			rows = qpRows(rp.screen())
			return slices.Equal(rows, c.rows)
		})
		if i > 0 {
			if d := initDetail(rp); !slices.Equal(d, c.detail) {
				t.Errorf("at %s the INIT QP's detail in replay:\n%s\nlive:\n%s", at, strings.Join(d, "\n"), strings.Join(c.detail, "\n"))
			}
		}
	}
	rp.press("q")
}

// qpRows are a QP view's rows as text from the link column on, spaces
// collapsed and sorted: what the row says, not its change mark.
func qpRows(screen string) []string {
	var rows []string
	for _, l := range strings.Split(screen, "\n") {
		i := strings.Index(l, "rxe0/")
		if i < 0 || !strings.Contains(l, "verbscope") {
			continue
		}
		rows = append(rows, strings.Join(strings.Fields(strings.ReplaceAll(l[i:], "│", " ")), " "))
	}
	slices.Sort(rows)
	return rows
}

// initDetail opens the detail of the QP in INIT (the filter leaves it
// alone) and returns its state, owner and PD lines; none when no QP is
// in INIT. The view is left as it was.
func initDetail(s *tmuxAs) []string {
	s.press("/")
	s.typeText("state=INIT")
	s.press("Enter")
	waitForText(s.t, s.screen, "</state=INIT>") // the filter kept
	// Each key after an esc waits for the esc to show: two read
	// together are one Alt+esc.
	filterGone := func() {
		labkit.WaitFor(s.t, labkit.Screen, "esc to clear the filter", func() bool { return !strings.Contains(s.screen(), "</state=INIT") })
	}
	if !strings.Contains(s.screen(), " INIT ") {
		s.press("Escape")
		filterGone()
		return nil
	}
	s.press("Enter")
	waitForText(s.t, s.screen, "PSNs")
	var out []string
	for _, l := range strings.Split(s.screen(), "\n") {
		l = strings.Join(strings.Fields(strings.ReplaceAll(l, "│", " ")), " ")
		for _, p := range []string{"state ", "pid ", "process ", "PD "} {
			if strings.HasPrefix(l, p) {
				out = append(out, l)
			}
		}
	}
	s.press("Escape") // the detail
	labkit.WaitFor(s.t, labkit.Screen, "esc to close the detail", func() bool { return !strings.Contains(s.screen(), "PSNs") })
	s.press("Escape") // the filter
	filterGone()
	return out
}

// TestDashRewindLab: the live dashboard keeps its last minutes; a verbs
// shell's QP that vanished 10 s ago is back on screen after `t -25s`
// (the header says REWIND and how far behind live) and the shell pane
// shows that shell's recorded session, and esc returns to live, where
// it is gone and the pane is the dashboard's own shell again.
func TestDashRewindLab(t *testing.T) {
	labkit.Clean(t)
	start := time.Now()
	live := startTmux(t, "rewind", "xterm-256color", "verbscope dash --view qp --no-trace --rewind 5m", 160, 40)
	live.waitFor("· [ rewinds")
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; channel; cq channel=ch1; qp type=rc cq=cq1; next qp1; wait cq1 timeout=10m")
	live.waitFor(" INIT ")
	rows := qpRows(live.screen())
	if len(rows) != 1 {
		t.Fatalf("the shell's QP: rows %q", rows)
	}
	time.Sleep(15 * time.Second) // its life, long enough to land on
	sh.Signal(syscall.SIGTERM)
	sh.Exit(t, labkit.Run)
	labkit.WaitFor(t, labkit.Screen, "the QP gone from the live view", func() bool { return len(qpRows(live.screen())) == 0 })
	// Gone from the screen keepGone (5 s) and up to a refresh after it
	// was destroyed; 10 s on, -25s lands near the middle of its 15 s
	// life, 7 s from either end (typing the jump takes a second or two).
	time.Sleep(10 * time.Second)
	live.press("t")
	live.waitFor("enter jumps")
	live.typeText("-25s")
	live.press("Enter")
	session := fmt.Sprintf("recorded session of pid %d (script)", sh.PID())
	labkit.WaitFor(t, labkit.Screen, "the vanished QP back, 25 s behind live, with its shell's session", func() bool {
		s := live.screen()
		return slices.Equal(qpRows(s), rows) && strings.Contains(s, "behind live") && strings.Contains(s, session)
	})
	// What the half minute kept costs: the file and its -wal in the rewind's
	// private folder (root's are in /run/verbscope).
	files := rewindFiles("rewind.vsrec*")
	var size int64
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			size += st.Size()
		}
	}
	if len(files) == 0 {
		t.Errorf("no rewind file in %v", rewindPlaces())
	}
	t.Logf("the rewind's files after %v: %d bytes (%v)", time.Since(start).Round(time.Second), size, files)
	live.press("Escape")
	labkit.WaitFor(t, labkit.Screen, "live again, without the QP or the recorded session", func() bool {
		s := live.screen()
		return len(qpRows(s)) == 0 && strings.Contains(s, "· [ rewinds") && !strings.Contains(s, session)
	})
	live.press("q")
	labkit.WaitFor(t, labkit.Step, "the rewind's files removed when the dashboard quit", func() bool {
		return len(rewindFiles("")) == 0
	})
}

// rewindPlaces are where a dashboard may keep its rewind folder.
func rewindPlaces() []string {
	return []string{"/run/verbscope", os.Getenv("XDG_RUNTIME_DIR"), os.TempDir()}
}

// rewindFiles are the rewind folders (name "") or the files named
// like name in them.
func rewindFiles(name string) []string {
	var out []string
	for _, p := range rewindPlaces() {
		if p == "" {
			continue
		}
		m, _ := filepath.Glob(filepath.Join(p, "verbscope-rewind-*", name))
		out = append(out, m...)
	}
	return out
}
