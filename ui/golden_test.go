package ui

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
)

// A screen's golden keeps what its view drew, not the registry's list:
// the tab row and the help's views note name every view, so a view
// added would change every golden. They are kept once, in
// TestTabRowGolden, and each screen's golden has a mark in their place.
const (
	tabRowMark    = "[the tab row: TestTabRowGolden]"
	viewsNoteMark = "[the help's views note: TestTabRowGolden]"
)

// requireBody compares a screen with its golden, the registry's lists
// left out (body).
func requireBody(t *testing.T, out string) {
	t.Helper()
	golden.RequireEqual(t, body(t, out))
}

// body is a screen with the tab row (the header's last line) and the
// help's views note each replaced by its mark. It fails the test when
// the header's last line is not a tab row, so a screen whose rows moved
// is not marked in the wrong place.
func body(t *testing.T, out string) string {
	t.Helper()
	lines := strings.Split(out, "\n")
	if len(lines) < headerHeight || !isTabRow(ansi.Strip(lines[headerHeight-1])) {
		t.Fatalf("line %d of the screen is not the tab row:\n%s", headerHeight, ansi.Strip(out))
	}
	lines[headerHeight-1] = tabRowMark
	if from, to := viewsNote(lines); from < to {
		lines = slices.Replace(lines, from, to, viewsNoteMark)
	}
	return strings.Join(lines, "\n")
}

// isTabRow reports whether line is the tab row: view names, and the ‹ ›
// that say views are left out.
func isTabRow(line string) bool {
	words := strings.Fields(line)
	for _, w := range words {
		if w != "‹" && w != "›" && !slices.Contains(ViewNames(), w) {
			return false
		}
	}
	return len(words) > 0
}

// viewsNote is where the help's views note lies in lines, [from, to):
// its labelled line and the lines it wraps onto (from == to: none).
func viewsNote(lines []string) (from, to int) {
	for i, l := range lines {
		if strings.HasPrefix(ansi.Strip(l), "views   :") {
			to = i + 1
			for to < len(lines) && strings.HasPrefix(ansi.Strip(lines[to]), "        :") {
				to++
			}
			return i, to
		}
	}
	return 0, 0
}

// TestTabRowGolden keeps what the registry lists on screen: the tab row
// with each view shown, at each width, and the help's views note; then
// the tab row in each theme's colours. A view added changes this golden
// and no other.
func TestTabRowGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			m := fixtureModel(t, "rxe0", "dark", sz[0], sz[1], true)
			var b strings.Builder
			for _, v := range ViewNames() {
				m.Update(m.jumpMsg(v))
				row := strings.Split(screen(m), "\n")[headerHeight-1]
				if !isTabRow(row) {
					t.Fatalf(":%s: line %d is not the tab row:\n%s", v, headerHeight, screen(m))
				}
				fmt.Fprintf(&b, "%-9s|%s|\n", v, row)
			}
			help := m.helpLines(sz[0])
			from, to := viewsNote(help)
			if from == to {
				t.Fatalf("the help has no views note:\n%s", strings.Join(help, "\n"))
			}
			b.WriteString(ansi.Strip(strings.Join(help[from:to], "\n")) + "\n")
			golden.RequireEqual(t, b.String())
		})
	}
	t.Run("themes", func(t *testing.T) {
		var b strings.Builder
		for _, theme := range []string{"dark", "light", "high-contrast", "mono"} {
			m := fixtureModel(t, "rxe0", theme, 80, 24, true)
			var out bytes.Buffer
			w := &colorprofile.Writer{Forward: &out, Profile: colorprofile.ANSI256}
			if _, err := w.WriteString(m.render()); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%-14s|%s|\n", theme, strings.Split(out.String(), "\n")[headerHeight-1])
		}
		golden.RequireEqual(t, b.String())
	})
}
