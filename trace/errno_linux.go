package trace

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// errnoName is the errno's symbol (EINVAL), as strace prints it.
func errnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return e.Error()
}
