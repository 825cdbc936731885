//go:build linux && cgo

package verbs

/*
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"github.com/verbscope/verbscope/rdma"
	"sync"
	"syscall"
	"unsafe"
)

// The data path. Go fills flat work requests and SGEs in C memory that
// each QP (or SRQ) allocated once, then one shim call chains and posts a
// whole batch: no Go pointer reaches C (cgocheck2 stays quiet) and a post
// allocates nothing.

// A scratch area holds between minPostBatch and maxPostBatch requests:
// as many as the queue was granted, but at least minPostBatch so that a
// batch longer than the queue still reaches the library in one call and
// its refusal (ENOMEM at the first request that does not fit) comes back
// as it would from C. Longer slices are posted in chunks.
const (
	minPostBatch = 64
	maxPostBatch = 256
)

// sendScratch is a QP's C memory for send batches.
type sendScratch struct {
	mu     sync.Mutex
	in     []C.struct_vs_send_wr
	sges   []C.struct_ibv_sge
	chain  *C.struct_ibv_send_wr
	bad    *C.int // where the shim says which request was refused
	rc     *C.int // vs_post_send_spin's post result
	maxSGE int
	block  unsafe.Pointer // one calloc holding them all: a Go variable
	// passed by address to C would escape to the heap on every call
}

// recvScratch is a QP's or SRQ's C memory for receive batches.
type recvScratch struct {
	mu     sync.Mutex
	in     []C.struct_vs_recv_wr
	sges   []C.struct_ibv_sge
	chain  *C.struct_ibv_recv_wr
	bad    *C.int
	maxSGE int
	block  unsafe.Pointer
}

// scratchLayout sizes one calloc for n requests of wrSize bytes, their
// chain entries, n*maxSGE SGEs and two ints (the bad index and a post's
// result), and returns the offsets; every part is 8-byte aligned.
func scratchLayout(n, maxSGE int, wrSize, chainSize uintptr) (total, chainOff, sgeOff, badOff uintptr) {
	align := func(x uintptr) uintptr { return (x + 7) &^ 7 }
	chainOff = align(uintptr(n) * wrSize)
	sgeOff = chainOff + align(uintptr(n)*chainSize)
	badOff = sgeOff + align(uintptr(n*maxSGE)*unsafe.Sizeof(C.struct_ibv_sge{}))
	total = badOff + 8 // bad, and a send scratch's rc
	return
}

func newSendScratch(cp QPCap) *sendScratch {
	n, maxSGE := scratchSize(cp.MaxSendWR, cp.MaxSendSGE)
	total, chainOff, sgeOff, badOff := scratchLayout(n, maxSGE, unsafe.Sizeof(C.struct_vs_send_wr{}), unsafe.Sizeof(C.struct_ibv_send_wr{}))
	block := C.calloc(1, C.size_t(total))
	if block == nil {
		return nil
	}
	return &sendScratch{
		block:  block,
		in:     unsafe.Slice((*C.struct_vs_send_wr)(block), n),
		chain:  (*C.struct_ibv_send_wr)(unsafe.Add(block, chainOff)),
		bad:    (*C.int)(unsafe.Add(block, badOff)),
		rc:     (*C.int)(unsafe.Add(block, badOff+4)),
		sges:   unsafe.Slice((*C.struct_ibv_sge)(unsafe.Add(block, sgeOff)), n*maxSGE),
		maxSGE: maxSGE,
	}
}

func newRecvScratch(maxWR, maxSGE uint32) *recvScratch {
	n, sge := scratchSize(maxWR, maxSGE)
	total, chainOff, sgeOff, badOff := scratchLayout(n, sge, unsafe.Sizeof(C.struct_vs_recv_wr{}), unsafe.Sizeof(C.struct_ibv_recv_wr{}))
	block := C.calloc(1, C.size_t(total))
	if block == nil {
		return nil
	}
	return &recvScratch{
		block:  block,
		in:     unsafe.Slice((*C.struct_vs_recv_wr)(block), n),
		chain:  (*C.struct_ibv_recv_wr)(unsafe.Add(block, chainOff)),
		bad:    (*C.int)(unsafe.Add(block, badOff)),
		sges:   unsafe.Slice((*C.struct_ibv_sge)(unsafe.Add(block, sgeOff)), n*sge),
		maxSGE: sge,
	}
}

// scratchSize is how many requests and SGEs per request a scratch holds.
func scratchSize(maxWR, maxSGE uint32) (int, int) {
	return int(min(max(maxWR, minPostBatch), maxPostBatch)), int(max(1, maxSGE))
}

func (s *sendScratch) free() {
	if s != nil && s.block != nil {
		C.free(s.block)
		s.block = nil
	}
}

func (s *recvScratch) free() {
	if s != nil && s.block != nil {
		C.free(s.block)
		s.block = nil
	}
}

// fillSGEs writes sges into dst and returns how many it wrote.
func fillSGEs(dst []C.struct_ibv_sge, sges []SGE) int {
	for j := range sges {
		s := &sges[j]
		dst[j].addr = C.uint64_t(s.MR.h.addr() + s.Offset)
		dst[j].length = C.uint32_t(s.Length)
		dst[j].lkey = C.uint32_t(s.MR.lkey)
	}
	return len(sges)
}

// fill writes a chunk of send requests (at most len(s.in)) into s.
func (s *sendScratch) fill(chunk []SendWR) {
	nsge := 0
	for i := range chunk {
		wr := &chunk[i]
		in := &s.in[i]
		*in = C.struct_vs_send_wr{
			wr_id: C.uint64_t(wr.WRID), opcode: C.uint32_t(wr.Opcode), send_flags: C.uint32_t(wr.Flags),
			imm: C.uint32_t(wr.Imm), remote_addr: C.uint64_t(wr.RemoteAddr), rkey: C.uint32_t(wr.RKey),
			compare_add: C.uint64_t(wr.CompareAdd), swap: C.uint64_t(wr.Swap),
			remote_qpn: C.uint32_t(wr.RemoteQPN), remote_qkey: C.uint32_t(wr.RemoteQKey),
			num_sge: C.uint32_t(len(wr.SGEs)),
		}
		if wr.AH != nil {
			in.ah = wr.AH.h.ah
		}
		if b := wr.Bind; wr.Opcode == rdma.WRBindMW && b != nil {
			in.mw, in.bind_mr = b.MW.h.mw, b.MR.h.mr
			in.bind_addr = C.uint64_t(b.MR.h.addr() + b.Offset)
			in.bind_length = C.uint64_t(b.Length)
			in.bind_access = C.uint32_t(b.Access)
			in.rkey = C.uint32_t(bindRKey(b))
		}
		nsge += fillSGEs(s.sges[nsge:], wr.SGEs)
	}
}

// postChunks posts wrs in chunks of size requests, one C call each
// (post fills the scratch with a chunk, posts it, and returns the errno
// and the shim's bad index), and turns the first failure into a
// *PostError that counts the requests of earlier chunks.
func postChunks[T any](op string, wrs []T, size int, post func(chunk []T) (rc, bad C.int)) error {
	for start := 0; start < len(wrs); start += size {
		if rc, bad := post(wrs[start:min(len(wrs), start+size)]); rc != 0 {
			return postErr(op, rc, start, int(bad))
		}
	}
	return nil
}

// postSend posts wrs (already checked) in chunks of the scratch size.
func (h *qpHandle) postSend(wrs []SendWR) error {
	s := h.send
	s.mu.Lock()
	defer s.mu.Unlock()
	return postChunks("ibv_post_send", wrs, len(s.in), func(chunk []SendWR) (C.int, C.int) {
		s.fill(chunk)
		rc := C.vs_post_send(h.qp, &s.in[0], C.int(len(chunk)), &s.sges[0], s.chain, s.bad)
		return rc, *s.bad
	})
}

// sendBatch is how many send requests one C call takes.
func (h *qpHandle) sendBatch() int { return len(h.send.in) }

// postSendSpin posts wrs (already checked, at most a scratch's worth) and
// spins on cq for completions in the same C call.
func (h *qpHandle) postSendSpin(wrs []SendWR, cq *cqHandle, wcs []WC, spins int) (int, error) {
	s := h.send
	s.mu.Lock()
	defer s.mu.Unlock()
	cq.pollMu.Lock()
	defer cq.pollMu.Unlock()
	s.fill(wrs)
	n := C.vs_post_send_spin(h.qp, &s.in[0], C.int(len(wrs)), &s.sges[0], s.chain, s.bad,
		cq.cq, C.int(min(len(wcs), cq.batch)), cq.raw, cq.out, C.int(spins), spinYield, s.rc)
	if *s.rc != 0 {
		return 0, postErr("ibv_post_send", *s.rc, 0, int(*s.bad))
	}
	return cq.collect(wcs, n)
}

// postErr turns a post's errno and bad_wr index into a *PostError.
func postErr(op string, rc C.int, start, bad int) error {
	if bad < 0 {
		bad = 0
	}
	err := rcErr(op, rc)
	if e, ok := err.(*Error); ok && e.Hint == "" {
		switch e.Err {
		case syscall.ENOMEM:
			e.Hint = "the queue is full: more requests outstanding than the QP was created for; poll completions first or create it with more MaxSendWR/MaxRecvWR"
		case syscall.EINVAL:
			e.Hint = "the provider refused the request: check the opcode for this QP type, the QP's state (receives cannot be posted in RESET) and the SGE count"
		}
	}
	return &PostError{Op: op, Index: start + bad, Posted: start + bad, Err: err}
}

// fillRecvs writes a chunk of receive requests into s.
func (s *recvScratch) fill(chunk []RecvWR) {
	nsge := 0
	for i := range chunk {
		s.in[i] = C.struct_vs_recv_wr{wr_id: C.uint64_t(chunk[i].WRID), num_sge: C.uint32_t(len(chunk[i].SGEs))}
		nsge += fillSGEs(s.sges[nsge:], chunk[i].SGEs)
	}
}

func (h *qpHandle) postRecv(wrs []RecvWR) error {
	return h.recv.post("ibv_post_recv", wrs, func(s *recvScratch, n int) C.int {
		return C.vs_post_recv(h.qp, &s.in[0], C.int(n), &s.sges[0], s.chain, s.bad)
	})
}

func (h *srqHandle) postRecv(wrs []RecvWR) error {
	return h.recv.post("ibv_post_srq_recv", wrs, func(s *recvScratch, n int) C.int {
		return C.vs_post_srq_recv(h.srq, &s.in[0], C.int(n), &s.sges[0], s.chain, s.bad)
	})
}

// post fills s chunk by chunk and posts each with call (a QP's or an
// SRQ's ibv_post_recv), holding s for the whole batch.
func (s *recvScratch) post(op string, wrs []RecvWR, call func(s *recvScratch, n int) C.int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return postChunks(op, wrs, len(s.in), func(chunk []RecvWR) (C.int, C.int) {
		s.fill(chunk)
		rc := call(s, len(chunk))
		return rc, *s.bad
	})
}

// poll takes up to min(len(wcs), batch) completions in one C call.
func (h *cqHandle) poll(wcs []WC) (int, error) { return h.spin(wcs, 0) }

// spin is poll that keeps polling in C, up to spins empty polls, until
// something arrives (spins 0: poll once).
func (h *cqHandle) spin(wcs []WC, spins int) (int, error) {
	h.pollMu.Lock()
	defer h.pollMu.Unlock()
	var n C.int
	if spins == 0 {
		n = C.vs_poll_cq(h.cq, C.int(min(len(wcs), h.batch)), h.raw, h.out)
	} else {
		n = C.vs_poll_cq_spin(h.cq, C.int(min(len(wcs), h.batch)), h.raw, h.out, C.int(spins), spinYield)
	}
	return h.collect(wcs, n)
}

// collect converts the n completions a shim left in h.out (or its
// negative errno) into wcs.
func (h *cqHandle) collect(wcs []WC, n C.int) (int, error) {
	if n < 0 {
		return 0, errnoError("ibv_poll_cq", syscall.Errno(-n))
	}
	out := unsafe.Slice(h.out, int(n))
	for i := range out {
		o := &out[i]
		wcs[i] = WC{
			WRID: uint64(o.wr_id), Status: WCStatus(o.status), Opcode: WCOpcode(o.opcode),
			VendorErr: uint32(o.vendor_err), ByteLen: uint32(o.byte_len), Imm: uint32(o.imm),
			InvalidatedRKey: uint32(o.inv_rkey), QPNum: uint32(o.qp_num), SrcQP: uint32(o.src_qp),
			Flags: WCFlags(o.wc_flags), PKeyIndex: uint16(o.pkey_index), SLID: uint16(o.slid),
			SL: uint8(o.sl), DLIDPathBits: uint8(o.dlid_path_bits),
		}
	}
	return int(n), nil
}

// spinYield is how many empty polls a C spin makes between yields: only
// a long wait yields. Yielding sooner cost bandwidth and latency on rxe
// in the lab, where both ends of a loopback share two vCPUs
// (BenchmarkWriteBandwidth, BenchmarkSendLatency: docs/performance.md).
const spinYield = 4096

func (h *cqHandle) reqNotify(solicitedOnly bool) error {
	so := C.int(0)
	if solicitedOnly {
		so = 1
	}
	return rcErr("ibv_req_notify_cq", C.vs_req_notify_cq(h.cq, so))
}
