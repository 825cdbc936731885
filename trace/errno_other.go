//go:build !linux

package trace

import "syscall"

// errnoName is the errno's text where Linux's symbols are not known.
func errnoName(e syscall.Errno) string { return e.Error() }
