package verbs

import (
	"errors"
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"syscall"
)

// Sentinel errors. Each Error wraps one of these or a syscall.Errno, so
// callers test with errors.Is.
var (
	// ErrNoDevice: the host has no RDMA device, or none of that name
	// (ibv_get_device_list(3) returned an empty list or failed).
	ErrNoDevice = errors.New("no RDMA device")
	// ErrClosed: the object was already closed (or destroyed by its
	// parent). Calls on it fail here, since libibverbs would use freed
	// memory (ibv_destroy_qp(3) and the like free the object).
	ErrClosed = errors.New("verbs object is closed")
	// ErrUnsupported: this build has no libibverbs (CGO_ENABLED=0 or not
	// Linux), or the device lacks the feature (where libibverbs answers
	// EOPNOTSUPP, see ibv_alloc_mw(3)).
	ErrUnsupported = errors.New("not supported")
)

// Error is a failed verbs call. Op names the libibverbs function, Err is
// the errno (syscall.Errno) or a sentinel, and Hint says, in words, what
// usually causes this failure and what to do about it. (the libibverbs
// function names are those of its man pages, e.g. ibv_modify_qp(3)).
type Error struct {
	Op   string
	Err  error
	Hint string
}

// Error says which call failed, the errno with its symbolic name, and the hint.
func (e *Error) Error() string {
	s := "verbs: " + e.Op + ": " + describe(e.Err)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap returns the errno or sentinel, for errors.Is.
func (e *Error) Unwrap() error { return e.Err }

// describe gives an errno its symbolic name as well as its text, since
// the name is what man pages and kernel sources use.
func describe(err error) string {
	var en syscall.Errno
	if errors.As(err, &en) {
		if name := rdma.ErrnoName(en); name != "" {
			return fmt.Sprintf("%s (%s)", en.Error(), name)
		}
	}
	return err.Error()
}

// errnoError builds an Error for a call that failed with errno, adding the
// usual hint for that call and errno.
func errnoError(op string, errno syscall.Errno) error {
	if errno == 0 {
		// Some providers fail without setting errno; say so rather than
		// print "success".
		return &Error{Op: op, Err: syscall.EIO, Hint: "the library failed without setting errno"}
	}
	return &Error{Op: op, Err: errno, Hint: hintFor(op, errno)}
}

// hintFor is the teacher's note for common failures.
func hintFor(op string, errno syscall.Errno) string {
	switch {
	case errno == syscall.ENOSYS && op == "ibv_get_device_list":
		return "this kernel has no RDMA support (no ib_uverbs); run `verbscope lab` for a Soft-RoCE VM"
	case errno == syscall.ENOMEM && op == "ibv_reg_mr":
		return "pinning memory failed: raise the locked-memory limit (ulimit -l, RLIMIT_MEMLOCK) or run as root"
	case errno == syscall.ENOMEM && op == "mmap":
		return "the kernel would not map memory for the region: it is too large for this machine or the process's address-space limit"
	case errno == syscall.EINVAL && op == "ibv_create_ah":
		return "on RoCE an address handle must be global: set IsGlobal, a GRH with the peer's GID as DGID, and SGIDIndex naming a populated local GID"
	case errno == syscall.EINVAL && op == "ibv_reg_mr":
		return "the access flags are invalid for this device (remote write or atomic need LOCAL_WRITE; ON_DEMAND needs ODP support)"
	case (errno == syscall.EOPNOTSUPP || errno == syscall.ENOSYS) && op == "ibv_alloc_mw":
		return "this device or provider has no memory windows of that type (see DeviceAttr.MaxMW and the MEM_WINDOW capability flags)"
	case errno == syscall.EOPNOTSUPP || errno == syscall.ENOSYS:
		return "this device or its provider does not implement the call"
	case errno == syscall.EACCES || errno == syscall.EPERM:
		return "check permissions on /dev/infiniband/uverbs*"
	case errno == syscall.EBUSY:
		return "the object still has children: destroy QPs, CQs, MRs and AHs before their PD or context"
	}
	return ""
}
