package ui

import (
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestWidthRunes: every rune width counts as one cell is one cell to
// lipgloss, alone and after ASCII.
func TestWidthRunes(t *testing.T) {
	for _, rg := range oneCell {
		for r := rg[0]; r <= rg[1]; r++ {
			for _, s := range []string{string(r), "a" + string(r) + "b"} {
				if got, want := width(s), lipgloss.Width(s); got != want {
					t.Errorf("width(%q) = %d, lipgloss says %d", s, got, want)
				}
			}
		}
	}
}

func TestWidth(t *testing.T) {
	bold := lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("#ff8800"))
	for _, s := range []string{
		"", "plain", bold.Render("styled") + " text", "┌─ 1 Devices ─┐", "│ rxe0 · 1 port … │",
		"wide 漢字", "emoji 👍🏽", "e\u0301", "♥\ufe0f", "tab\there", "two\nlines", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
		"\x1b[", "\x1b[31", "\x1b[3\x01m", "soft\u00adhyphen", "\x7f", "\xff",
	} {
		if got, want := width(s), lipgloss.Width(s); got != want {
			t.Errorf("width(%q) = %d, lipgloss says %d", s, got, want)
		}
		for w := range 8 {
			if got, want := truncate(s, w, "…"), ansi.Truncate(s, w, "…"); got != want {
				t.Errorf("truncate(%q, %d) = %q, ansi says %q", s, w, got, want)
			}
		}
	}
}

// FuzzWidth holds width and truncate to lipgloss's and ansi's answers
// for any line.
func FuzzWidth(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[1;38;2;255;136;0mstyled\x1b[m", "│ … │", "漢字", "👍🏽"} {
		f.Add(s, 4)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = max(0, w%64)
		if got, want := width(s), lipgloss.Width(s); got != want {
			t.Errorf("width(%q) = %d, lipgloss says %d", s, got, want)
		}
		if got, want := truncate(s, w, "…"), ansi.Truncate(s, w, "…"); got != want {
			t.Errorf("truncate(%q, %d) = %q, ansi says %q", s, w, got, want)
		}
	})
}
