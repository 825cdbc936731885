package labkit

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// Kernel is the series of the kernel the lab booted, "6.1" or "6.12"
// (uname's release up to its second dot: lab's guestKernels name the
// series the lab boots; labkit does not import lab, whose own tests use
// labkit). A lab test whose outcome differs between those kernels
// branches on it and says in a comment what differs and from which
// version.
func Kernel(t testing.TB) string {
	t.Helper()
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatalf("uname: %v", err)
	}
	rel := unix.ByteSliceToString(u.Release[:])
	parts := strings.SplitN(rel, ".", 3)
	if len(parts) < 3 || parts[0] == "" || parts[1] == "" {
		t.Fatalf("kernel release %q has no series (major.minor.)", rel)
	}
	return parts[0] + "." + parts[1]
}
