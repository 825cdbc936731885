package view

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable returns s as a terminal can show it without obeying it: a
// process chooses its own comm (any 15 bytes but NUL), so a comm of
// escape sequences printed raw could clear, retitle or rewrite the
// terminal of the root user reading it.
//
// The convention is Go's (and `ls -b`'s) backslash escapes, one per
// offending byte or rune, never a bare '?' that would hide which byte it
// was:
//   - a control byte (C0, DEL) and a byte that is not valid UTF-8 become
//     \xHH (ESC is \x1b, a stray 0xff is \xff);
//   - a valid rune that is not printable (C1 controls such as U+009B,
//     which terminals may take as CSI, bidi overrides, zero-width and
//     unassigned code points) becomes \uHHHH or \UHHHHHHHH.
//
// Printable text, backslashes included, comes back unchanged, so an
// ordinary name costs nothing and reads as it always did; the exact
// bytes stay in the JSON views, which encoding/json escapes already.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if !printable(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < utf8.RuneSelf && !printable(r):
			b.WriteString(`\x`)
			writeHex(&b, uint64(s[i]), 2)
		case !printable(r) && r <= 0xffff:
			b.WriteString(`\u`)
			writeHex(&b, uint64(r), 4)
		case !printable(r):
			b.WriteString(`\U`)
			writeHex(&b, uint64(r), 8)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printable is unicode.IsPrint (letters, marks, numbers, punctuation,
// symbols and the ASCII space) less U+FFFD, which a decoder also returns
// for a broken byte and so is judged where the bytes are seen.
func printable(r rune) bool {
	return r != utf8.RuneError && unicode.IsPrint(r)
}

// writeHex writes v as digits lower-case hex digits, zero-padded.
func writeHex(b *strings.Builder, v uint64, digits int) {
	h := strconv.FormatUint(v, 16)
	b.WriteString(strings.Repeat("0", digits-len(h)))
	b.WriteString(h)
}

// Display is the field's text as a terminal shows it (Printable): what
// every text view prints, where Text may hold a process's own bytes.
func (f Field) Display() string { return Printable(f.Text) }
