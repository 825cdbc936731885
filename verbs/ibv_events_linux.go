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

// testHookAsyncEvent, when a test sets it, runs between reading an async
// event and resolving the object it names: where a racing QP.Close used
// to destroy the QP and let a new one take its address.
var testHookAsyncEvent func()

// getAsyncEvent reads one event without blocking (EAGAIN: none pending),
// resolves the object it names in reg, then acknowledges it. In that
// order, as getEvent does for completion events: the event not yet
// acknowledged holds ibv_destroy_qp (cq, srq) of its object, so the
// address still names that object, never one created at the same
// address after a racing Close (ABA).
func (h *ctxHandle) getAsyncEvent(reg *registry) (AsyncEvent, error) {
	var ev C.struct_ibv_async_event
	var out C.struct_vs_async_event
	if rc, errno := C.vs_get_async_event(h.ctx, &ev, &out); rc != 0 {
		if errno == syscall.EAGAIN {
			return AsyncEvent{}, syscall.EAGAIN
		}
		return AsyncEvent{}, createErr("ibv_get_async_event", errno)
	}
	if testHookAsyncEvent != nil {
		testHookAsyncEvent()
	}
	resolved := rawAsyncEvent{
		typ: EventType(out._type), port: int(out.port), qpNum: uint32(out.qp_num),
		qp: uintptr(unsafe.Pointer(out.qp)), cq: uintptr(unsafe.Pointer(out.cq)), sq: uintptr(unsafe.Pointer(out.srq)),
	}.resolve(reg)
	C.vs_ack_async_event(&ev)
	return resolved, nil
}
