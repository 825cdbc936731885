// Package verbs is verbscope's cgo core over libibverbs (rdma-core): the
// devices, protection domains, completion queues, memory regions and queue
// pairs of the Verbs API, with the kernel's QP state machine as checked
// data.
//
// Every object has an explicit, idempotent Close that destroys its
// children first (QP before CQ before PD before context), because
// libibverbs refuses the opposite order with EBUSY. Errors keep the errno,
// so errors.Is(err, syscall.EINVAL) works, and say which call failed and
// what usually causes it. Builds without cgo or off Linux get the same API
// from stub.go, every call failing with ErrUnsupported.
//
// Files: the public API is plain Go (context.go, device.go, enums.go,
// errors.go); everything that touches C is in *_linux.go files with the
// cgo build tag and shim.c, which wraps verbs.h's macros and inline
// functions.
package verbs
