package verbs

import (
	"sync"
	"weak"
)

// registry maps the address of a libibverbs object (struct ibv_cq, ibv_qp,
// ibv_srq) to its Go wrapper, so completion and async events, which name
// the C object, can name the Go one. It holds weak pointers: a wrapper
// the program dropped stays collectable, so the leak tracker still sees it.
type registry struct {
	mu sync.Mutex
	m  map[uintptr]any // weak.Pointer[CQ], weak.Pointer[QP] or weak.Pointer[SRQ]
}

// add records wrapper under the C object's address.
func add[T any](r *registry, addr uintptr, wrapper *T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[uintptr]any{}
	}
	r.m[addr] = weak.Make(wrapper)
}

// remove forgets the C object at addr; its destroy calls it.
func (r *registry) remove(addr uintptr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.m, addr)
}

// lookup returns the live wrapper of type T at addr, or nil.
func lookup[T any](r *registry, addr uintptr) *T {
	if addr == 0 {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if wp, ok := r.m[addr].(weak.Pointer[T]); ok {
		return wp.Value()
	}
	return nil
}
