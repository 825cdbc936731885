// Package verbs is verbscope's cgo core over libibverbs (rdma-core): the
// devices, protection domains, completion queues, memory regions and queue
// pairs of the Verbs API. Devices lists the devices; Open opens one as a
// Context, from which the other objects are made. Its enums and attribute
// structs, and the kernel's QP state machine as checked data, are package
// rdma's (the shared vocabulary, pure Go); verbs aliases the types its API
// uses.
//
// Every object has an explicit, idempotent Close that destroys its
// children first (QP before CQ before PD before context), because
// libibverbs refuses the opposite order with EBUSY. Errors keep the errno,
// so errors.Is(err, syscall.EINVAL) works, and say which call failed and
// what usually causes it. Builds without cgo or off Linux get the same API
// from stub.go, every call failing with ErrUnsupported.
//
// The data path: PostSend and PostRecv take slices of work requests and
// cross into C once per batch; Poll converts completions in C; BusyPoll
// spins in C; CompChannel.Wait and Context.Events wait in Go's netpoller.
// Buffers the device touches (MRs, work requests, SGEs, completions) live
// in mmap or C memory, never on the Go heap.
//
// Files: the public API is plain Go (context.go, device.go, check_env.go,
// errors.go, pd.go, cq.go, qp.go, mr.go, mw.go, ah.go, srq.go, closed.go,
// post.go, poll.go, wc.go, events.go, with the aliases of rdma's types in
// vocab.go); the object graph and the leak tracker are object.go,
// registry.go and leak.go. Everything that touches C is in ibv_*_linux.go
// with the cgo build tag and shim.c, which wraps verbs.h's macros and
// inline functions and holds the batch loops.
package verbs
