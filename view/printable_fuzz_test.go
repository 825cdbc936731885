package view

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPrintable checks the escaper's promise for any bytes: the output
// holds no C0 control byte or DEL, is valid UTF-8, is printable itself
// (so escaping twice changes nothing), and text that was printable
// comes back unchanged.
func FuzzPrintable(f *testing.F) {
	for _, s := range []string{"", "rxe0", "\x1b[2J", "ibv_rc_pingpon\xe2\x82", "\xff", "\u009b", `a\x1b`, "€😀", "\ufffd", "\u202e"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Printable(s)
		for i := 0; i < len(got); i++ {
			if got[i] < 0x20 || got[i] == 0x7f {
				t.Fatalf("Printable(%q) = %q holds byte %#x", s, got, got[i])
			}
		}
		if !utf8.ValidString(got) {
			t.Fatalf("Printable(%q) = %q is not valid UTF-8", s, got)
		}
		if again := Printable(got); again != got {
			t.Fatalf("Printable(%q) = %q is not printable: again %q", s, got, again)
		}
		if isPrintable(s) != (got == s) {
			t.Fatalf("Printable(%q) = %q: printable input must come back unchanged, and only it", s, got)
		}
		if !strings.Contains(s, `\`) && strings.Count(got, `\`) < countUnprintable(s) {
			t.Fatalf("Printable(%q) = %q: fewer escapes than unprintable runes", s, got)
		}
	})
}

func isPrintable(s string) bool { return countUnprintable(s) == 0 }

// countUnprintable counts the bytes of broken UTF-8 and the unprintable
// runes, each of which must be escaped on its own.
func countUnprintable(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !printable(r) {
			n++
		}
		i += size
	}
	return n
}
