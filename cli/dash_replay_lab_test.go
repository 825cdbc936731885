//go:build lab

package cli

import (
	"path/filepath"
	"regexp"
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
// shows the recorded IRQ reading.
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
	deadline := time.Now().Add(labkit.Screen)
	for !strings.Contains(s.screen(), " ERR ") {
		if time.Now().After(deadline) {
			t.Fatalf("} never reached the QP in ERR; the screen:\n%s", s.screen())
		}
		s.press("}")
		time.Sleep(time.Second)
	}
	errAt := replayIndex.FindString(s.screen())
	before := s.screen()
	s.press("[")
	labkit.WaitFor(t, labkit.Screen, "[ one reading back", func() bool { return s.screen() != before })
	// t jumps to a time written as --at takes it: start is reading 1.
	s.press("t")
	s.waitFor("enter jumps")
	s.typeText("start")
	s.press("Enter")
	labkit.WaitFor(t, labkit.Screen, "t start: the first reading", func() bool { return strings.Contains(s.screen(), "(1/") })
	// With a filter, one } passes over the QP's creation and INIT and
	// lands on the reading that first showed it in ERR.
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
	s.press("q")
}

// replayIndex finds the header's place among the readings: "(7/".
var replayIndex = regexp.MustCompile(`\(\d+/`)
