//go:build lab

package cli

import (
	"strconv"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestDashboardPaneAndEvents, through tmux on the real rxe0: the shell
// pane is three lines while nobody types in it (its rule sits three rows
// above the footer), tab grows it to a third, ctrl+t cycles it to half,
// the shell's whole screen and back to the view; the compact pane shows
// the last answer's first line. The events view follows new events (a
// process's QP appearing) until k moves up, and G follows again, its
// title saying which.
func TestDashboardPaneAndEvents(t *testing.T) {
	labkit.Clean(t)
	const h = 40 // newTmux's height
	s, _ := startDash(t, "verbscope dash --no-trace --interval 500ms; echo status=$?")
	ruleRow := func() int {
		for i, l := range strings.Split(strings.TrimRight(s.screen(), "\n"), "\n") {
			if strings.HasPrefix(l, "── shell") {
				return i
			}
		}
		return -1
	}
	paneRows := func(step string, want int) {
		t.Helper()
		var got int
		labkit.WaitFor(t, labkit.Screen, step+": the pane "+strconv.Itoa(want)+" rows", func() bool {
			got = h - 1 - ruleRow()
			return got == want
		})
	}
	room := h - 5 // all but the header's four rows and the footer
	paneRows("at start", 3)
	s.key("Tab")
	paneRows("tab", room/3)
	s.keys("-l", "open")
	s.key("Enter")
	s.waitLong("ctx1 = device rxe0")
	s.key("C-t")
	paneRows("ctrl+t", room/2)
	s.key("C-t")
	paneRows("ctrl+t twice", room-3)
	s.key("C-t")
	paneRows("ctrl+t thrice", 3)
	if scr := s.screen(); !strings.Contains(strings.Join(strings.Split(scr, "\n")[ruleRow()+1:], "\n"), "ctx1 = device rxe0") {
		t.Errorf("the compact pane should show the answer to open:\n%s", scr)
	}

	s.keys(":")
	s.keys("-l", "events")
	s.key("Enter")
	s.waitLong("following new rows")
	srv := labkit.Start(t, "ibv_rc_pingpong", "-g", labkit.Env(t, "LAB_GID_INDEX"))
	defer srv.Kill()
	s.waitLong("appeared rxe0 qp")
	if scr := s.screen(); !strings.Contains(scr, "following new rows") {
		t.Errorf("the events view stopped following when a QP appeared:\n%s", scr)
	}
	s.key("k")
	s.waitLong("paused (G follows again)")
	s.key("G")
	s.waitLong("following new rows")
	s.key("q")
	s.waitRE(`(?m)^status=0`)
}
