//go:build linux && cgo

package verbs

/*
#include "shim.h"
*/
import "C"

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mrHandle owns a registered region and the mapping under it.
type mrHandle struct {
	mr  *C.struct_ibv_mr
	mem []byte // the whole mapping (whole pages)
}

// mwHandle owns a memory window.
type mwHandle struct{ mw *C.struct_ibv_mw }

// ahHandle owns an address handle.
type ahHandle struct{ ah *C.struct_ibv_ah }

// srqHandle owns a shared receive queue and its post scratch.
type srqHandle struct {
	srq  *C.struct_ibv_srq
	recv *recvScratch
}

func (h *pdHandle) regMR(size int, access AccessFlags) (*mrHandle, []byte, uint32, uint32, error) {
	pages := (size + unix.Getpagesize() - 1) &^ (unix.Getpagesize() - 1)
	mem, err := unix.Mmap(-1, 0, pages, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		en, _ := err.(syscall.Errno)
		return nil, nil, 0, 0, &Error{Op: "mmap", Err: err, Hint: hintFor("mmap", en)}
	}
	mr, errno := C.vs_reg_mr(h.pd, unsafe.Pointer(&mem[0]), C.size_t(size), C.int(access))
	if mr == nil {
		unix.Munmap(mem)
		return nil, nil, 0, 0, createErr("ibv_reg_mr", errno)
	}
	return &mrHandle{mr: mr, mem: mem}, mem[:size:size], uint32(mr.lkey), uint32(mr.rkey), nil
}

func (h *mrHandle) addr() uint64 { return uint64(uintptr(h.mr.addr)) }

func (h *mrHandle) destroy() error {
	if err := rcErr("ibv_dereg_mr", C.ibv_dereg_mr(h.mr)); err != nil {
		return err
	}
	// ibv_dereg_mr freed h.mr: whatever happens to the mapping, the
	// region is gone and must never be deregistered again.
	if err := unix.Munmap(h.mem); err != nil {
		return &goneError{&Error{Op: "munmap", Err: err,
			Hint: "the region was deregistered, but its memory stays mapped (leaked, so slices of it stay valid)"}}
	}
	h.mem = nil
	return nil
}

func (h *pdHandle) allocMW(typ MWType) (*mwHandle, uint32, error) {
	mw, errno := C.vs_alloc_mw(h.pd, C.int(typ))
	if mw == nil {
		return nil, 0, createErr("ibv_alloc_mw", errno)
	}
	return &mwHandle{mw: mw}, uint32(mw.rkey), nil
}

func (h *mwHandle) destroy() error { return rcErr("ibv_dealloc_mw", C.vs_dealloc_mw(h.mw)) }

// bindMW posts a type 1 bind and returns the window's new rkey.
func (h *qpHandle) bindMW(mw *mwHandle, mr *mrHandle, addr, length uint64, access AccessFlags, wrID uint64, flags SendFlags) (uint32, error) {
	h.send.mu.Lock() // the bind goes on the send queue like a post
	defer h.send.mu.Unlock()
	rc := C.vs_bind_mw(h.qp, mw.mw, C.uint64_t(wrID), C.uint(flags), mr.mr, C.uint64_t(addr), C.uint64_t(length), C.uint(access))
	if err := rcErr("ibv_bind_mw", rc); err != nil {
		return 0, err
	}
	return uint32(mw.mw.rkey), nil
}

func (h *pdHandle) createAH(attr *AHAttr) (*ahHandle, error) {
	a := cAH(attr)
	ah, errno := C.ibv_create_ah(h.pd, &a)
	if ah == nil {
		return nil, createErr("ibv_create_ah", errno)
	}
	return &ahHandle{ah: ah}, nil
}

func (h *ahHandle) destroy() error { return rcErr("ibv_destroy_ah", C.ibv_destroy_ah(h.ah)) }

func (h *pdHandle) createSRQ(attr SRQAttr) (*srqHandle, SRQAttr, error) {
	var a C.struct_ibv_srq_init_attr
	a.attr = cSRQAttr(attr)
	srq, errno := C.ibv_create_srq(h.pd, &a)
	if srq == nil {
		return nil, SRQAttr{}, createErr("ibv_create_srq", errno)
	}
	granted := goSRQAttr(a.attr)
	sh := &srqHandle{srq: srq, recv: newRecvScratch(granted.MaxWR, granted.MaxSGE)}
	if sh.recv == nil {
		C.ibv_destroy_srq(srq)
		return nil, SRQAttr{}, errnoError("ibv_create_srq", syscall.ENOMEM)
	}
	return sh, granted, nil
}

func (h *srqHandle) addr() uintptr { return uintptr(unsafe.Pointer(h.srq)) }

func (h *srqHandle) destroy() error {
	if err := rcErr("ibv_destroy_srq", C.ibv_destroy_srq(h.srq)); err != nil {
		return err
	}
	h.recv.free()
	return nil
}

func (h *srqHandle) query() (SRQAttr, error) {
	var a C.struct_ibv_srq_attr
	if err := rcErr("ibv_query_srq", C.ibv_query_srq(h.srq, &a)); err != nil {
		return SRQAttr{}, err
	}
	return goSRQAttr(a), nil
}

func (h *srqHandle) modify(attr SRQAttr, mask SRQAttrMask) error {
	a := cSRQAttr(attr)
	return rcErr("ibv_modify_srq", C.ibv_modify_srq(h.srq, &a, C.int(mask)))
}

func cSRQAttr(a SRQAttr) C.struct_ibv_srq_attr {
	return C.struct_ibv_srq_attr{max_wr: C.uint32_t(a.MaxWR), max_sge: C.uint32_t(a.MaxSGE), srq_limit: C.uint32_t(a.Limit)}
}

func goSRQAttr(a C.struct_ibv_srq_attr) SRQAttr {
	return SRQAttr{MaxWR: uint32(a.max_wr), MaxSGE: uint32(a.max_sge), Limit: uint32(a.srq_limit)}
}
