//go:build lab

package cli

import (
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
)

// hostileComm retitles the terminal (OSC 2) and turns on reverse video:
// what a process could do to whoever reads a raw listing of its QPs. It
// is 13 bytes, inside the 15 a comm keeps.
const (
	hostileComm  = "\x1b]2;PWN\x07\x1b[7mq"
	hostileShown = `\x1b]2;PWN\x07\x1b[7mq` // view.Printable's quoting
)

// TestTextHostileComm: a real process whose comm holds escape sequences
// holds a QP; `verbscope res qp` prints the comm quoted, and the
// dashboard shows it quoted in its table and detail without the
// terminal (tmux) obeying it: the pane keeps its title and the captured
// screen, escapes included, holds no OSC.
func TestTextHostileComm(t *testing.T) {
	labkit.Clean(t)
	pid, stop := qpholder.StartAs(t, 1, hostileComm)
	defer stop()

	out := string(verbscopeRes(t, "qp"))
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Errorf("verbscope res qp wrote the comm's control bytes:\n%q", out)
	}
	if !strings.Contains(out, "comm "+hostileShown) {
		t.Errorf("verbscope res qp should show the holder's (pid %d) comm as %s:\n%s", pid, hostileShown, out)
	}
	js := string(verbscopeRes(t, "qp", "-j"))
	if !strings.Contains(js, `"comm":"\u001b]2;PWN\u0007\u001b[7mq"`) {
		t.Errorf("verbscope res qp -j should keep the comm's exact bytes, JSON-escaped:\n%s", js)
	}

	s, _ := startDash(t, "verbscope dash --view qp --interval 500ms; echo status=$?")
	title := func() string { return s.run("display-message", "-p", "-t", s.name, "#{pane_title}") }
	s.waitLong(`\x1b]2;PWN`) // the QP view's comm column
	s.key("/")
	s.keys("-l", "PWN")  // the filter searches the raw text
	s.waitLong("</PWN>") // it applies as it is typed
	s.key("Enter")
	s.waitRE(`QPs \[1/\d+\] </PWN>`)
	s.key("Enter")                    // the holder's QP's detail
	s.waitLong(hostileShown + " pid") // its owner line names the process
	esc := s.run("capture-pane", "-p", "-e", "-t", s.name)
	if strings.Contains(esc, "\x1b]") || strings.Contains(esc, "PWN\x07") {
		t.Errorf("the captured screen holds the comm's OSC:\n%q", esc)
	}
	if strings.Contains(title(), "PWN") {
		t.Errorf("the comm retitled the terminal: pane title %q", title())
	}
	// Each key waits for the one before to show: an Escape read
	// together with the next key is that key with Alt.
	s.key("Escape")
	waitScreenLacks(t, s, hostileShown+" pid")
	s.key("Escape")
	waitScreenLacks(t, s, "</PWN>")
	s.key("q")
	s.waitLong("status=0")
}
