//go:build linux && cgo

package verbs

/*
#include <infiniband/verbs.h>
*/
import "C"

import (
	"syscall"
	"unsafe"
)

// Handles own one libibverbs object each. Their destroy methods are the
// object graph's single destroy calls; libibverbs returns the errno value
// itself from destroy and modify calls, and NULL plus errno from creates.

type pdHandle struct{ pd *C.struct_ibv_pd }

type chanHandle struct{ ch *C.struct_ibv_comp_channel }

type cqHandle struct{ cq *C.struct_ibv_cq }

type qpHandle struct{ qp *C.struct_ibv_qp }

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
	return &chanHandle{ch: ch}, nil
}

func (h *chanHandle) destroy() error {
	return rcErr("ibv_destroy_comp_channel", C.ibv_destroy_comp_channel(h.ch))
}

func (h *ctxHandle) createCQ(cqe int, ch *chanHandle, vector int) (*cqHandle, int, error) {
	var cch *C.struct_ibv_comp_channel
	if ch != nil {
		cch = ch.ch
	}
	cq, errno := C.ibv_create_cq(h.ctx, C.int(cqe), nil, cch, C.int(vector))
	if cq == nil {
		return nil, 0, createErr("ibv_create_cq", errno)
	}
	return &cqHandle{cq: cq}, int(cq.cqe), nil
}

func (h *cqHandle) destroy() error { return rcErr("ibv_destroy_cq", C.ibv_destroy_cq(h.cq)) }

func (h *pdHandle) createQP(typ QPType, send, recv *cqHandle, cp QPCap, sigAll bool) (*qpHandle, uint32, QPCap, error) {
	var a C.struct_ibv_qp_init_attr
	a.qp_type = C.enum_ibv_qp_type(typ)
	a.send_cq, a.recv_cq = send.cq, recv.cq
	a.cap = C.struct_ibv_qp_cap{
		max_send_wr: C.uint32_t(cp.MaxSendWR), max_recv_wr: C.uint32_t(cp.MaxRecvWR),
		max_send_sge: C.uint32_t(cp.MaxSendSGE), max_recv_sge: C.uint32_t(cp.MaxRecvSGE),
		max_inline_data: C.uint32_t(cp.MaxInlineData),
	}
	if sigAll {
		a.sq_sig_all = 1
	}
	qp, errno := C.ibv_create_qp(h.pd, &a)
	if qp == nil {
		return nil, 0, QPCap{}, createErr("ibv_create_qp", errno)
	}
	return &qpHandle{qp: qp}, uint32(qp.qp_num), goCap(a.cap), nil
}

func (h *qpHandle) destroy() error { return rcErr("ibv_destroy_qp", C.ibv_destroy_qp(h.qp)) }

func (h *qpHandle) modify(attr *QPAttr, mask QPAttrMask) error {
	a := cQPAttr(attr)
	return rcErr("ibv_modify_qp", C.ibv_modify_qp(h.qp, &a, C.int(mask)))
}

func (h *qpHandle) query(mask QPAttrMask) (QPAttr, error) {
	var a C.struct_ibv_qp_attr
	var init C.struct_ibv_qp_init_attr
	if err := rcErr("ibv_query_qp", C.ibv_query_qp(h.qp, &a, C.int(mask), &init)); err != nil {
		return QPAttr{}, err
	}
	return goQPAttr(&a), nil
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
	a.cap = C.struct_ibv_qp_cap{
		max_send_wr: C.uint32_t(g.Cap.MaxSendWR), max_recv_wr: C.uint32_t(g.Cap.MaxRecvWR),
		max_send_sge: C.uint32_t(g.Cap.MaxSendSGE), max_recv_sge: C.uint32_t(g.Cap.MaxRecvSGE),
		max_inline_data: C.uint32_t(g.Cap.MaxInlineData),
	}
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
