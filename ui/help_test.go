package ui

import (
	"fmt"
	"strings"
	"testing"
)

// The help shows every key and its description whole at 80x24 and
// wider, scrolling when it does not fit: nothing is cut with "…".
func TestHelpShowsEveryKey(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", sz[0], sz[1], true)
			send(m, "?")
			pages := []string{screen(m)}
			for i := 0; i < 10 && strings.Contains(pages[len(pages)-1], "scroll"); i++ {
				send(m, "pgdown")
				pages = append(pages, screen(m))
			}
			checkFits(t, screen(m), sz[0], sz[1])
			if m.mode != modeHelp {
				t.Fatal("scrolling closed the help")
			}
			seen := strings.Join(pages, "\n")
			groups := m.helpGroups()
			for _, g := range groups {
				for _, b := range g {
					if !strings.Contains(seen, b.Help().Key+" ") || !strings.Contains(seen, b.Help().Desc) {
						t.Errorf("help lacks %q %q:\n%s", b.Help().Key, b.Help().Desc, seen)
					}
				}
			}
			for _, page := range pages {
				lines := strings.Split(page, "\n")
				// The help is between the header's four lines and the footer.
				for _, l := range lines[4 : len(lines)-1] {
					if l = strings.TrimRight(l, " "); strings.HasSuffix(l, "…") && !strings.HasSuffix(l, "(:qp :dev …)") {
						t.Errorf("a help line is cut: %q", l)
					}
				}
			}
			send(m, "x")
			if m.mode == modeHelp {
				t.Error("a key other than the movement keys should close the help")
			}
		})
	}
}

func TestHelpGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", sz[0], sz[1], true)
			send(m, "?")
			requireBody(t, screen(m))
		})
	}
}
