package labkit

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/lab"
)

// Kernel is the series of the kernel the lab booted, "6.1" or "6.12"
// (uname's release up to its second dot, one of lab.GuestKernels). A lab
// test whose outcome differs between those kernels branches on it and
// says in a comment what differs and from which version.
func Kernel(t testing.TB) string {
	t.Helper()
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatalf("uname: %v", err)
	}
	rel := unix.ByteSliceToString(u.Release[:])
	for _, k := range lab.GuestKernels {
		if strings.HasPrefix(rel, k.Name+".") {
			return k.Name
		}
	}
	t.Fatalf("kernel %s is none of the lab's (lab/kernels.go)", rel)
	return ""
}
