package trace

import (
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// raiseMemlock lifts RLIMIT_MEMLOCK where the kernel charges BPF memory to
// it (before 5.11; later kernels charge the memory cgroup), as
// cilium/ebpf's rlimit.RemoveMemlock does. That package finds out in its
// init, by creating a BPF map under a zero limit, in every process that
// links it, tracing or not: a cost on each verbscope start, `verbscope
// res` included (BenchmarkResProcess: docs/performance.md). The kernel's
// version says it without a probe; a vendor kernel older than 5.11 with
// memcg accounting backported gets a limit it does not need, which costs
// nothing.
func raiseMemlock() error {
	var u unix.Utsname
	if err := unix.Uname(&u); err == nil && !chargesMemlock(unix.ByteSliceToString(u.Release[:])) {
		return nil
	}
	lim := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	return unix.Prlimit(0, unix.RLIMIT_MEMLOCK, &lim, nil)
}

// chargesMemlock reports whether a kernel of this release (uname -r:
// "6.1.0-28-amd64") charges BPF maps and programs to RLIMIT_MEMLOCK. A
// release it cannot read counts as one that does.
func chargesMemlock(release string) bool {
	major, rest, _ := strings.Cut(release, ".")
	// The minor number ends at its first non-digit: "15-rc1", "4+".
	minor := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
	maj, err1 := strconv.Atoi(major)
	min, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return true
	}
	return maj < 5 || maj == 5 && min < 11
}
