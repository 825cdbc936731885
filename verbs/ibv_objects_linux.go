//go:build linux && cgo

package verbs

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// Handles own one libibverbs object each. Their destroy methods are the
// object graph's single destroy calls; libibverbs returns the errno value
// itself from destroy and modify calls, and NULL plus errno from creates.

type pdHandle struct{ pd *C.struct_ibv_pd }

// chanHandle owns a completion channel. Its fd is non-blocking and a dup
// of it sits in Go's netpoller (file), so Wait can park there; mu and
// closed keep a Wait from reading a channel being destroyed.
type chanHandle struct {
	ch     *C.struct_ibv_comp_channel
	file   *os.File
	waitMu sync.Mutex // one Wait at a time: they share the file's deadline
	mu     sync.Mutex
	closed bool
}

// cqHandle owns a CQ and the C scratch its polls use.
type cqHandle struct {
	cq     *C.struct_ibv_cq
	pollMu sync.Mutex // guards the scratch
	raw    *C.struct_ibv_wc
	out    *C.struct_vs_wc
	batch  int
}

// qpHandle owns a QP and the C scratch its posts use.
type qpHandle struct {
	qp   *C.struct_ibv_qp
	send *sendScratch
	recv *recvScratch // nil with an SRQ
}

// createErr turns a create call's errno into an Error.
func createErr(op string, errno error) error {
	en, _ := errno.(syscall.Errno)
	return errnoError(op, en)
}

// rcErr turns a returned errno value into an Error (nil for 0).
func rcErr(op string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	if rc < 0 { // some providers return -errno
		rc = -rc
	}
	return errnoError(op, syscall.Errno(rc))
}

func (h *ctxHandle) allocPD() (*pdHandle, error) {
	pd, errno := C.ibv_alloc_pd(h.ctx)
	if pd == nil {
		return nil, createErr("ibv_alloc_pd", errno)
	}
	return &pdHandle{pd: pd}, nil
}

func (h *pdHandle) dealloc() error { return rcErr("ibv_dealloc_pd", C.ibv_dealloc_pd(h.pd)) }

func (h *ctxHandle) createCompChannel() (*chanHandle, error) {
	ch, errno := C.ibv_create_comp_channel(h.ctx)
	if ch == nil {
		return nil, createErr("ibv_create_comp_channel", errno)
	}
	f, err := pollable(int(ch.fd), "completion channel")
	if err != nil {
		C.ibv_destroy_comp_channel(ch)
		return nil, &Error{Op: "ibv_create_comp_channel", Err: err, Hint: "could not make the channel's fd non-blocking for Go's netpoller"}
	}
	return &chanHandle{ch: ch, file: f}, nil
}

func (h *chanHandle) fd() int { return int(h.ch.fd) }

func (h *chanHandle) destroy() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := rcErr("ibv_destroy_comp_channel", C.ibv_destroy_comp_channel(h.ch)); err != nil {
		return err
	}
	h.closed = true
	h.file.Close() // wakes a Wait parked in the netpoller
	return nil
}

// testHookCQEvent, when a test sets it, runs between reading a
// completion event and resolving its CQ: where a racing CQ.Close used to
// free the CQ and let a new one take its address.
var testHookCQEvent func()

// getEvent reads one completion event without blocking (EAGAIN: none)
// and returns the CQ it names: nil when that CQ is being destroyed or
// its wrapper is gone.
func (h *chanHandle) getEvent(reg *registry) (*CQ, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, &Error{Op: "ibv_get_cq_event", Err: ErrClosed, Hint: "the completion channel was destroyed"}
	}
	var cq *C.struct_ibv_cq
	if rc, errno := C.vs_get_cq_event(h.ch, &cq); rc != 0 {
		if errno == syscall.EAGAIN {
			return nil, syscall.EAGAIN
		}
		return nil, createErr("ibv_get_cq_event", errno)
	}
	if testHookCQEvent != nil {
		testHookCQEvent()
	}
	// The event is not acknowledged yet, so ibv_destroy_cq(3) cannot
	// return and cq's address names this CQ, not one created after it
	// (ABA): resolve it now, then acknowledge.
	w := lookup[CQ](reg, uintptr(unsafe.Pointer(cq)))
	if C.vs_ack_cq_event(cq) != 0 {
		return nil, nil // a CQ.Close is destroying it: the event goes with it
	}
	return w, nil
}

func (h *ctxHandle) createCQ(cqe int, ch *chanHandle, vector int) (*cqHandle, int, error) {
	var cch *C.struct_ibv_comp_channel
	if ch != nil {
		cch = ch.ch
	}
	cq, errno := C.vs_create_cq(h.ctx, C.int(cqe), cch, C.int(vector))
	if cq == nil {
		return nil, 0, createErr("ibv_create_cq", errno)
	}
	actual := int(cq.cqe)
	ch2 := &cqHandle{cq: cq, batch: max(1, min(actual, PollBatch))}
	ch2.raw = (*C.struct_ibv_wc)(C.calloc(C.size_t(ch2.batch), C.size_t(unsafe.Sizeof(C.struct_ibv_wc{}))))
	ch2.out = (*C.struct_vs_wc)(C.calloc(C.size_t(ch2.batch), C.size_t(unsafe.Sizeof(C.struct_vs_wc{}))))
	if ch2.raw == nil || ch2.out == nil {
		ch2.free()
		C.vs_destroy_cq(cq)
		return nil, 0, errnoError("ibv_create_cq", syscall.ENOMEM)
	}
	return ch2, actual, nil
}

func (h *cqHandle) addr() uintptr { return uintptr(unsafe.Pointer(h.cq)) }

func (h *cqHandle) free() {
	C.free(unsafe.Pointer(h.raw))
	C.free(unsafe.Pointer(h.out))
	h.raw, h.out = nil, nil
}

func (h *cqHandle) destroy() error {
	if err := rcErr("ibv_destroy_cq", C.vs_destroy_cq(h.cq)); err != nil {
		return err
	}
	h.free()
	return nil
}

func (h *pdHandle) createQP(q qpCreate) (*qpHandle, uint32, QPCap, error) {
	var a C.struct_ibv_qp_init_attr
	a.qp_type = C.enum_ibv_qp_type(q.typ)
	a.send_cq, a.recv_cq = q.send.cq, q.recv.cq
	if q.srq != nil {
		a.srq = q.srq.srq
	}
	a.cap = cCap(q.cap)
	if q.sigAll {
		a.sq_sig_all = 1
	}
	qp, errno := C.ibv_create_qp(h.pd, &a)
	if qp == nil {
		return nil, 0, QPCap{}, createErr("ibv_create_qp", errno)
	}
	granted := goCap(a.cap)
	qh := &qpHandle{qp: qp, send: newSendScratch(granted)}
	if q.srq == nil {
		qh.recv = newRecvScratch(granted.MaxRecvWR, granted.MaxRecvSGE)
	}
	if qh.send == nil || (q.srq == nil && qh.recv == nil) {
		qh.send.free()
		qh.recv.free()
		C.ibv_destroy_qp(qp)
		return nil, 0, QPCap{}, errnoError("ibv_create_qp", syscall.ENOMEM)
	}
	return qh, uint32(qp.qp_num), granted, nil
}

func (h *qpHandle) addr() uintptr { return uintptr(unsafe.Pointer(h.qp)) }

func (h *qpHandle) destroy() error {
	if err := rcErr("ibv_destroy_qp", C.ibv_destroy_qp(h.qp)); err != nil {
		return err
	}
	h.send.free()
	h.recv.free()
	return nil
}

func (h *qpHandle) modify(attr *QPAttr, mask QPAttrMask) error {
	a := cQPAttr(attr)
	return rcErr("ibv_modify_qp", C.ibv_modify_qp(h.qp, &a, C.int(mask)))
}

// query is ibv_query_qp(3); the init attributes it also fills are not
// needed (QP.InitAttr keeps what the QP was created with).
func (h *qpHandle) query(mask QPAttrMask) (QPAttr, error) {
	var a C.struct_ibv_qp_attr
	var init C.struct_ibv_qp_init_attr
	if err := rcErr("ibv_query_qp", C.ibv_query_qp(h.qp, &a, C.int(mask), &init)); err != nil {
		return QPAttr{}, err
	}
	return goQPAttr(&a), nil
}

func cCap(cp QPCap) C.struct_ibv_qp_cap {
	return C.struct_ibv_qp_cap{
		max_send_wr: C.uint32_t(cp.MaxSendWR), max_recv_wr: C.uint32_t(cp.MaxRecvWR),
		max_send_sge: C.uint32_t(cp.MaxSendSGE), max_recv_sge: C.uint32_t(cp.MaxRecvSGE),
		max_inline_data: C.uint32_t(cp.MaxInlineData),
	}
}

func goCap(c C.struct_ibv_qp_cap) QPCap {
	return QPCap{
		MaxSendWR: uint32(c.max_send_wr), MaxRecvWR: uint32(c.max_recv_wr),
		MaxSendSGE: uint32(c.max_send_sge), MaxRecvSGE: uint32(c.max_recv_sge),
		MaxInlineData: uint32(c.max_inline_data),
	}
}

func cAH(ah *AHAttr) C.struct_ibv_ah_attr {
	var a C.struct_ibv_ah_attr
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&a.grh.dgid)), 16), ah.GRH.DGID[:])
	a.grh.flow_label = C.uint32_t(ah.GRH.FlowLabel)
	a.grh.sgid_index = C.uint8_t(ah.GRH.SGIDIndex)
	a.grh.hop_limit = C.uint8_t(ah.GRH.HopLimit)
	a.grh.traffic_class = C.uint8_t(ah.GRH.TrafficClass)
	a.dlid = C.uint16_t(ah.DLID)
	a.sl = C.uint8_t(ah.SL)
	a.src_path_bits = C.uint8_t(ah.SrcPathBits)
	a.static_rate = C.uint8_t(ah.StaticRate)
	if ah.IsGlobal {
		a.is_global = 1
	}
	a.port_num = C.uint8_t(ah.PortNum)
	return a
}

func goAH(a *C.struct_ibv_ah_attr) AHAttr {
	var ah AHAttr
	copy(ah.GRH.DGID[:], unsafe.Slice((*byte)(unsafe.Pointer(&a.grh.dgid)), 16))
	ah.GRH.FlowLabel = uint32(a.grh.flow_label)
	ah.GRH.SGIDIndex = uint8(a.grh.sgid_index)
	ah.GRH.HopLimit = uint8(a.grh.hop_limit)
	ah.GRH.TrafficClass = uint8(a.grh.traffic_class)
	ah.DLID = uint16(a.dlid)
	ah.SL = uint8(a.sl)
	ah.SrcPathBits = uint8(a.src_path_bits)
	ah.StaticRate = uint8(a.static_rate)
	ah.IsGlobal = a.is_global != 0
	ah.PortNum = uint8(a.port_num)
	return ah
}

func b2u8(b bool) C.uint8_t {
	if b {
		return 1
	}
	return 0
}

func cQPAttr(g *QPAttr) C.struct_ibv_qp_attr {
	var a C.struct_ibv_qp_attr
	a.qp_state = C.enum_ibv_qp_state(g.State)
	a.cur_qp_state = C.enum_ibv_qp_state(g.CurState)
	a.path_mtu = C.enum_ibv_mtu(g.PathMTU)
	a.path_mig_state = C.enum_ibv_mig_state(g.PathMigState)
	a.qkey = C.uint32_t(g.QKey)
	a.rq_psn = C.uint32_t(g.RQPSN)
	a.sq_psn = C.uint32_t(g.SQPSN)
	a.dest_qp_num = C.uint32_t(g.DestQPN)
	a.qp_access_flags = C.uint(g.AccessFlags)
	a.cap = cCap(g.Cap)
	a.ah_attr = cAH(&g.AH)
	a.alt_ah_attr = cAH(&g.AltAH)
	a.pkey_index = C.uint16_t(g.PKeyIndex)
	a.alt_pkey_index = C.uint16_t(g.AltPKeyIndex)
	a.en_sqd_async_notify = b2u8(g.EnSQDAsyncNotify)
	a.sq_draining = b2u8(g.SQDraining)
	a.max_rd_atomic = C.uint8_t(g.MaxRdAtomic)
	a.max_dest_rd_atomic = C.uint8_t(g.MaxDestRdAtomic)
	a.min_rnr_timer = C.uint8_t(g.MinRNRTimer)
	a.port_num = C.uint8_t(g.Port)
	a.timeout = C.uint8_t(g.Timeout)
	a.retry_cnt = C.uint8_t(g.RetryCnt)
	a.rnr_retry = C.uint8_t(g.RNRRetry)
	a.alt_port_num = C.uint8_t(g.AltPort)
	a.alt_timeout = C.uint8_t(g.AltTimeout)
	a.rate_limit = C.uint32_t(g.RateLimit)
	return a
}

func goQPAttr(a *C.struct_ibv_qp_attr) QPAttr {
	return QPAttr{
		State:            QPState(a.qp_state),
		CurState:         QPState(a.cur_qp_state),
		PathMTU:          MTU(a.path_mtu),
		PathMigState:     MigState(a.path_mig_state),
		QKey:             uint32(a.qkey),
		RQPSN:            uint32(a.rq_psn),
		SQPSN:            uint32(a.sq_psn),
		DestQPN:          uint32(a.dest_qp_num),
		AccessFlags:      AccessFlags(a.qp_access_flags),
		Cap:              goCap(a.cap),
		AH:               goAH(&a.ah_attr),
		AltAH:            goAH(&a.alt_ah_attr),
		PKeyIndex:        uint16(a.pkey_index),
		AltPKeyIndex:     uint16(a.alt_pkey_index),
		EnSQDAsyncNotify: a.en_sqd_async_notify != 0,
		SQDraining:       a.sq_draining != 0,
		MaxRdAtomic:      uint8(a.max_rd_atomic),
		MaxDestRdAtomic:  uint8(a.max_dest_rd_atomic),
		MinRNRTimer:      uint8(a.min_rnr_timer),
		Port:             uint8(a.port_num),
		Timeout:          uint8(a.timeout),
		RetryCnt:         uint8(a.retry_cnt),
		RNRRetry:         uint8(a.rnr_retry),
		AltPort:          uint8(a.alt_port_num),
		AltTimeout:       uint8(a.alt_timeout),
		RateLimit:        uint32(a.rate_limit),
	}
}
