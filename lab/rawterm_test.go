package lab

import (
	"io"
	"testing"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/verbscope/verbscope/internal/labkit"
)

// What the guest writes reaches the screen byte for byte: a fresh
// terminal turns "\n" into "\r\n" (ONLCR), the raw one does not, and
// the old state comes back.
func TestRawTerminalPassesBytes(t *testing.T) {
	const frame = "ab\n\b\bcd\tef\x1b[2Cg"
	for _, raw := range []bool{false, true} {
		m, s := labkit.OpenPTY(t)
		fd := int(s.Fd())
		before, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		if before.Oflag&unix.ONLCR == 0 {
			t.Fatalf("a new pty should map newlines (oflag %#o)", before.Oflag)
		}
		var st *term.State
		if raw {
			if st, err = rawTerminal(fd); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.WriteString(frame); err != nil {
			t.Fatal(err)
		}
		want := frame
		if !raw {
			want = "ab\r\n\b\bcd\tef\x1b[2Cg"
		}
		got := make([]byte, len(want))
		if _, err := io.ReadFull(m, got); err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("raw=%v: the screen got %q, want %q", raw, got, want)
		}
		if raw {
			if err := term.Restore(fd, st); err != nil {
				t.Fatal(err)
			}
			after, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
			if after.Oflag != before.Oflag || after.Lflag != before.Lflag {
				t.Errorf("restore: oflag %#o lflag %#o, want %#o %#o", after.Oflag, after.Lflag, before.Oflag, before.Lflag)
			}
		}
	}
}
