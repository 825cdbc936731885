package labkit

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/rdma"
)

// Kernel is the series of the kernel the lab booted, "6.1" or "6.12"
// (uname's release up to its second dot; lab/kernels.go lists the
// lab's kernels). A lab test whose outcome differs between those kernels
// branches on it and says in a comment what differs and from which
// version.
func Kernel(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Fatalf("the kernel's release: %v", err)
	}
	rel := strings.TrimSpace(string(b))
	major, minor, ok := rdma.KernelVersion(rel)
	if !ok {
		t.Fatalf("kernel release %q has no major.minor", rel)
	}
	return fmt.Sprintf("%d.%d", major, minor)
}
