package ui

import (
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Measuring a line's cells by its grapheme clusters (lipgloss.Width) was
// a large share of the idle dashboard's CPU (BenchmarkIdleCost with a
// CPU profile, BenchmarkViewOverview10kQPs: docs/performance.md): every
// box line, every table cell, every reading. Most lines are ASCII, the
// theme's SGR sequences, and a few one-cell symbols (box rules, "…",
// "·", arrows); width counts those itself and leaves every other line
// to lipgloss. TestWidthRunes and FuzzWidth hold it to lipgloss's
// answer.

// oneCell are the ranges of runes outside ASCII that width counts as
// one cell each: runes that are no part of a longer grapheme cluster
// on their own and that lipgloss measures as one (TestWidthRunes).
var oneCell = [...][2]rune{
	{0x00a0, 0x00ac}, {0x00ae, 0x024f}, // Latin-1 and Latin Extended, not the soft hyphen
	{0x2010, 0x2027}, {0x2030, 0x205e}, // punctuation: dashes, "…", "‰"
	{0x2190, 0x21ff}, // arrows
	{0x2500, 0x25fc}, // box drawing, blocks, geometric shapes
}

func isOneCell(r rune) bool {
	for _, rg := range oneCell {
		if r >= rg[0] && r <= rg[1] {
			return true
		}
	}
	return false
}

// width is lipgloss.Width(s): the cells s takes on a terminal.
func width(s string) int {
	if n, ok := simpleWidth(s); ok {
		return n
	}
	return lipgloss.Width(s)
}

// simpleWidth is the cells of a line of ASCII, CSI sequences and
// oneCell runes; false for any other line (a newline, a tab, another
// escape, another rune), which the caller leaves to lipgloss or ansi.
func simpleWidth(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == 0x1b:
			j, ok := skipCSI(s, i)
			if !ok {
				return 0, false
			}
			i = j
			continue
		case c < 0x20 || c == 0x7f:
			return 0, false
		case c < utf8.RuneSelf:
			n++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isOneCell(r) {
			return 0, false
		}
		n++
		i += size
	}
	return n, true
}

// skipCSI returns the index past the SGR sequence (ESC [ digits and
// separators m, ECMA-48 8.3.117: what the themes' styles write) that
// starts at s[i], and false for any other escape.
func skipCSI(s string, i int) (int, bool) {
	if i+1 >= len(s) || s[i+1] != '[' {
		return 0, false
	}
	for j := i + 2; j < len(s); j++ {
		switch c := s[j]; {
		case c == 'm':
			return j + 1, true
		case c >= '0' && c <= '9' || c == ';' || c == ':':
		default:
			return 0, false
		}
	}
	return 0, false
}

// truncate is ansi.Truncate(s, w, tail), which a line that fits does
// not need.
func truncate(s string, w int, tail string) string {
	if n, ok := simpleWidth(s); ok && n <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}
