package lab

import (
	"time"

	"golang.org/x/sys/unix"
)

// rawOutputEvery is how often keepRawOutput looks at the terminal.
const rawOutputEvery = 100 * time.Millisecond

// keepRawOutput keeps output processing (OPOST) off on the terminal fd
// until stop is called. qemu's stdio backend sets the terminal up its
// own way when it starts (and again on SIGCONT) and leaves OPOST and
// ONLCR on, so every "\n" a guest program writes reached the screen as
// "\r\n". A full-screen program moves its cursor down with "\n" and
// expects the column to stay; its next relative move (backspaces, a few
// cells overwritten) then landed elsewhere, and frames lost cells (issue
// 18). With OPOST off the guest's bytes reach the screen unchanged; the
// guest's own tty still turns a shell's "\n" into "\r\n".
func keepRawOutput(fd int) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(rawOutputEvery)
		defer tick.Stop()
		for {
			if t, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil && t.Oflag&unix.OPOST != 0 {
				t.Oflag &^= unix.OPOST
				unix.IoctlSetTermios(fd, unix.TCSETS, t)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}
