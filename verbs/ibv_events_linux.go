//go:build linux && cgo

package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pollable makes fd non-blocking and returns a dup of it as an *os.File
// in Go's netpoller. O_NONBLOCK lives in the open file description, so
// libibverbs' own reads of fd stop blocking too: they fail with EAGAIN
// when there is nothing to read, and the netpoller says when to retry.
// The dup is what Go closes; libibverbs keeps closing its own fd.
func pollable(fd int, name string) (*os.File, error) {
	if rc, errno := C.vs_set_nonblock(C.int(fd)); rc != 0 {
		return nil, errno
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(dup), name), nil
}

// asyncFile is the context's async event fd, ready for the netpoller.
func (h *ctxHandle) asyncFile() (*os.File, error) {
	f, err := pollable(int(h.ctx.async_fd), "async events")
	if err != nil {
		return nil, &Error{Op: "ibv_get_async_event", Err: err, Hint: "could not make the async fd non-blocking for Go's netpoller"}
	}
	return f, nil
}

// getAsyncEvent reads, copies and acknowledges one event without
// blocking; EAGAIN means none is pending.
func (h *ctxHandle) getAsyncEvent() (rawAsyncEvent, error) {
	var ev C.struct_vs_async_event
	if rc, errno := C.vs_get_async_event(h.ctx, &ev); rc != 0 {
		if errno == syscall.EAGAIN {
			return rawAsyncEvent{}, syscall.EAGAIN
		}
		return rawAsyncEvent{}, createErr("ibv_get_async_event", errno)
	}
	return rawAsyncEvent{
		typ: EventType(ev._type), port: int(ev.port), qpNum: uint32(ev.qp_num),
		qp: uintptr(unsafe.Pointer(ev.qp)), cq: uintptr(unsafe.Pointer(ev.cq)), sq: uintptr(unsafe.Pointer(ev.srq)),
	}, nil
}
