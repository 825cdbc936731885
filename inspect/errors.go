package inspect

import (
	"errors"
	"fmt"
	"syscall"
)

// Sentinel errors. Errors from a Conn wrap one of these and, where the
// kernel answered with an errno, the syscall.Errno as well, so both
// errors.Is(err, ErrNoRDMA) and errors.Is(err, syscall.EPERM) work.
var (
	// ErrNoRDMA: this kernel has no RDMA netlink. socket(AF_NETLINK,
	// SOCK_RAW, NETLINK_RDMA) fails with EPROTONOSUPPORT until ib_core is
	// loaded (it registers the family in rdma_nl_init()).
	ErrNoRDMA = errors.New("no RDMA netlink in this kernel")
	// ErrUnsupported: the kernel or device does not implement the request
	// (EOPNOTSUPP), e.g. per-QP counters on a soft device.
	ErrUnsupported = errors.New("not supported by this kernel or device")
	// ErrMalformed: a reply did not decode (a kernel bug, a truncated
	// message, or a recorded reply that was damaged).
	ErrMalformed = errors.New("malformed netlink reply")
	// ErrClosed: the Conn was closed.
	ErrClosed = errors.New("connection closed")
)

// opError builds "inspect: op: detail: cause" and keeps cause (and an
// optional sentinel) reachable through errors.Is/As.
func opError(op string, sentinel, cause error) error {
	switch {
	case sentinel != nil && cause != nil:
		return fmt.Errorf("inspect: %s: %w: %w", op, sentinel, cause)
	case sentinel != nil:
		return fmt.Errorf("inspect: %s: %w", op, sentinel)
	default:
		return fmt.Errorf("inspect: %s: %w", op, cause)
	}
}

// explainErrno turns the kernel's answer to a request into an error that
// says what it means for nldev and what to do.
func explainErrno(op string, err error) error {
	var en syscall.Errno
	if !errors.As(err, &en) {
		return opError(op, nil, err)
	}
	switch en {
	case syscall.EPROTONOSUPPORT:
		return fmt.Errorf("inspect: %s: %w (load ib_core; on a host without RDMA use the lab VM, `verbscope lab`): %w", op, ErrNoRDMA, err)
	case syscall.EOPNOTSUPP:
		return opError(op, ErrUnsupported, err)
	case syscall.EPERM, syscall.EACCES:
		return opError(op+": needs CAP_NET_ADMIN (run as root)", nil, err)
	case syscall.EINVAL:
		return opError(op+": the kernel rejected the request (no such device or port, or an older kernel)", nil, err)
	case syscall.ENOENT:
		return opError(op+": no such object", nil, err)
	}
	return opError(op, nil, err)
}

// malformed reports a reply that failed to decode.
func malformed(op string, err error) error {
	return opError(op, ErrMalformed, err)
}
