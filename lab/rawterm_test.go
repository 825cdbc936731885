package lab

import (
	"io"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/internal/labkit"
)

// Once qemu (here: the test) turns output processing on, keepRawOutput
// turns it off again, and the guest's bytes reach the screen unchanged.
func TestKeepRawOutput(t *testing.T) {
	m, s := labkit.OpenPTY(t)
	fd := int(s.Fd())
	tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag |= unix.OPOST | unix.ONLCR // what qemu's stdio backend leaves
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	stop := keepRawOutput(fd)
	defer stop()
	// 30 looks of 100 ms: 3 s is 30x what it takes.
	deadline := time.Now().Add(30 * rawOutputEvery)
	for {
		got, _ := unix.IoctlGetTermios(fd, unix.TCGETS)
		if got.Oflag&unix.OPOST == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("OPOST still on after %v", 30*rawOutputEvery)
		}
		time.Sleep(10 * time.Millisecond)
	}
	const frame = "ab\n\b\bcd\tef"
	if _, err := s.WriteString(frame); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(frame))
	if _, err := io.ReadFull(m, got); err != nil {
		t.Fatal(err)
	}
	if string(got) != frame {
		t.Errorf("the screen got %q, want %q", got, frame)
	}
}
