package verbs

import (
	"context"
	"errors"
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"syscall"
)

// SGE is one scatter/gather element (struct ibv_sge, ibv_post_send(3)):
// Length bytes at Offset inside MR. Naming the MR rather than a raw
// address lets a post check the range before the device sees it.
type SGE struct {
	MR     *MR
	Offset uint64
	Length uint32
}

// SendWR is a send work request (struct ibv_send_wr, ibv_post_send(3)).
// Which fields count depends on Opcode.
type SendWR struct {
	WRID   uint64 // returned in the completion
	Opcode WROpcode
	Flags  SendFlags // rdma.SendSignaled, rdma.SendSolicited, rdma.SendInline, rdma.SendFence
	SGEs   []SGE     // the local buffer(s): the data sent, or where reads and atomics land
	// Imm is the immediate data of SEND_WITH_IMM and RDMA_WRITE_WITH_IMM,
	// in host byte order (converted to the wire's big-endian here), or
	// the rkey to invalidate for LOCAL_INV and SEND_WITH_INV.
	Imm uint32
	// RemoteAddr and RKey name the peer's memory for RDMA_WRITE(_WITH_IMM),
	// RDMA_READ and the atomics (whose address must be 8-byte aligned).
	RemoteAddr uint64
	RKey       uint32
	// CompareAdd is the value to compare (CMP_AND_SWP) or add
	// (FETCH_AND_ADD); Swap the value CMP_AND_SWP stores on a match. The
	// old remote value lands in the single 8-byte SGE.
	CompareAdd uint64
	Swap       uint64
	// AH, RemoteQPN and RemoteQKey address a UD send.
	AH         *AH
	RemoteQPN  uint32
	RemoteQKey uint32
	// Bind describes a BIND_MW request (type 2 windows).
	Bind *MWBind
}

// RecvWR is a receive work request (struct ibv_recv_wr,
// ibv_post_recv(3)): where the next incoming SEND (or the immediate of an
// RDMA_WRITE_WITH_IMM) lands. A UD receive needs 40 bytes more than the
// message for the GRH the device writes first.
type RecvWR struct {
	WRID uint64
	SGEs []SGE
}

// PostError is a post that was refused part-way: ibv_post_send(3) and
// ibv_post_recv(3) stop at the first bad work request (bad_wr). Index is
// that request's place in the slice; Posted says how many before it the
// device accepted (0 when this package refused the batch before calling
// the library). Err carries the errno.
type PostError struct {
	Op     string
	Index  int
	Posted int
	Err    error
}

// Error says which request the post refused and why, in the words of
// ibv_post_send(3)'s bad_wr.
func (e *PostError) Error() string {
	return fmt.Sprintf("verbs: %s: work request %d refused (%d posted before it): %v", e.Op, e.Index, e.Posted, e.Err)
}

// Unwrap gives the errno-carrying *Error, so errors.Is(err,
// syscall.ENOMEM) works on a post (ibv_post_send(3) returns the errno).
func (e *PostError) Unwrap() error { return e.Err }

// refuse builds the PostError for a request this package rejects before
// the library sees the batch.
func refuse(op string, index int, errno error, format string, args ...any) error {
	return &PostError{Op: op, Index: index, Err: &Error{Op: op, Err: errno, Hint: fmt.Sprintf(format, args...)}}
}

// PostSend posts send work requests in one ibv_post_send(3) call (one cgo
// crossing for the whole slice, chained in the QP's C scratch area, so
// the hot path allocates nothing). Every SGE must lie inside its MR; a
// request out of range, over the QP's caps or missing what its opcode
// needs is refused before anything is posted. When the library refuses
// one, the error is a *PostError naming it.
func (qp *QP) PostSend(wrs []SendWR) error {
	const op = "ibv_post_send"
	if len(wrs) == 0 {
		return nil
	}
	err := qp.obj.use(op, func() error {
		qp.ctx.dataMu.RLock()
		defer qp.ctx.dataMu.RUnlock()
		for i := range wrs {
			if err := qp.checkSend(i, &wrs[i]); err != nil {
				return err
			}
		}
		return qp.h.postSend(wrs)
	})
	qp.afterBinds(wrs, err)
	return err
}

// PostSendPoll posts wrs as PostSend does and then busy-polls cq until at
// least one completion arrives, in the same cgo call, and returns how
// many completions it stored in wcs. It is the step of a latency-bound
// ping-pong (send, then wait for the reply): one crossing into C instead
// of two, which is most of the cost under emulation and still measurable
// on hardware. A batch larger than the QP's scratch area is posted first
// and then polled, as PostSend and BusyPoll would. Binds are not taken
// here (use PostSend).
func (qp *QP) PostSendPoll(ctx context.Context, wrs []SendWR, cq *CQ, wcs []WC) (int, error) {
	const op = "ibv_post_send"
	if len(wrs) == 0 || len(wcs) == 0 || len(wrs) > qp.h.sendBatch() {
		if err := qp.PostSend(wrs); err != nil {
			return 0, err
		}
		return cq.BusyPoll(ctx, wcs, 1)
	}
	var n int
	err := qp.obj.use(op, func() error {
		return cq.obj.use("ibv_poll_cq", func() error {
			qp.ctx.dataMu.RLock()
			defer qp.ctx.dataMu.RUnlock()
			for i := range wrs {
				if wrs[i].Opcode == rdma.WRBindMW {
					return refuse(op, i, syscall.EINVAL, "PostSendPoll does not take BIND_MW: post binds with PostSend")
				}
				if err := qp.checkSend(i, &wrs[i]); err != nil {
					return err
				}
			}
			var err error
			n, err = qp.h.postSendSpin(wrs, cq.h, wcs, spinBatch)
			return err
		})
	})
	if err != nil || n > 0 {
		return n, err
	}
	return cq.BusyPoll(ctx, wcs, 1)
}

// afterBinds gives type 2 windows the rkeys their posted binds carry and
// ties each window to its MR in the object graph.
func (qp *QP) afterBinds(wrs []SendWR, err error) {
	posted := len(wrs)
	if err != nil {
		var pe *PostError
		if !errors.As(err, &pe) {
			return
		}
		posted = pe.Posted
	}
	for i := 0; i < posted; i++ {
		if b := wrs[i].Bind; wrs[i].Opcode == rdma.WRBindMW && b != nil {
			b.MW.rkey.Store(bindRKey(b))
			qp.ctx.link(b.MW.obj, b.MR.obj)
		}
	}
}

// bindRKey is the rkey a type 2 bind gives its window.
func bindRKey(b *MWBind) uint32 {
	if b.RKey != 0 {
		return b.RKey
	}
	return incRKey(b.MW.RKey())
}

// checkSend refuses, with a reason, a request the library would reject
// with a bare EINVAL, or that would make the device touch memory outside
// a region. It runs under the context's dataMu, so closed flags are stable.
func (qp *QP) checkSend(i int, wr *SendWR) error {
	const op = "ibv_post_send"
	if n := uint32(len(wr.SGEs)); n > qp.cap.MaxSendSGE {
		return refuse(op, i, syscall.EINVAL, "%d SGEs, but the QP was created with max_send_sge %d", n, qp.cap.MaxSendSGE)
	}
	total, err := checkSGEs(op, i, wr.SGEs)
	if err != nil {
		return err
	}
	if wr.Flags&rdma.SendInline != 0 && total > uint64(qp.cap.MaxInlineData) {
		return refuse(op, i, syscall.EINVAL, "%d bytes inline, but the QP's max_inline_data is %d: send without rdma.SendInline or create the QP with a larger MaxInlineData", total, qp.cap.MaxInlineData)
	}
	switch wr.Opcode {
	case rdma.WRSend, rdma.WRSendWithImm:
		if qp.typ == rdma.QPTypeUD {
			if wr.AH == nil {
				return refuse(op, i, syscall.EINVAL, "a UD send needs an address handle (SendWR.AH) and the remote QPN and QKey")
			}
			if wr.AH.obj.closed {
				return refuse(op, i, ErrClosed, "%s was closed", wr.AH.obj.name)
			}
		}
	case rdma.WRAtomicCmpAndSwp, rdma.WRAtomicFetchAndAdd:
		if len(wr.SGEs) != 1 || wr.SGEs[0].Length != 8 {
			return refuse(op, i, syscall.EINVAL, "an atomic needs exactly one 8-byte SGE, where the old remote value lands")
		}
		if wr.RemoteAddr%8 != 0 {
			return refuse(op, i, syscall.EINVAL, "the atomic's remote address 0x%x is not 8-byte aligned", wr.RemoteAddr)
		}
	case rdma.WRBindMW:
		if wr.Bind == nil {
			return refuse(op, i, syscall.EINVAL, "a BIND_MW request needs SendWR.Bind")
		}
		if err := checkBind(op, wr.Bind); err != nil {
			return &PostError{Op: op, Index: i, Err: err}
		}
		if wr.Bind.MW.typ != MWType2 {
			return refuse(op, i, syscall.EINVAL, "BIND_MW work requests bind type 2 windows; bind a type 1 window with QP.BindMW")
		}
		if wr.Bind.MW.obj.closed || wr.Bind.MR.obj.closed {
			return refuse(op, i, ErrClosed, "the window or the region was closed")
		}
		if len(wr.SGEs) != 0 {
			return refuse(op, i, syscall.EINVAL, "a BIND_MW request carries no SGEs")
		}
	}
	return nil
}

// checkSGEs checks each SGE against its MR and returns the total length.
func checkSGEs(op string, i int, sges []SGE) (uint64, error) {
	var total uint64
	for j := range sges {
		s := &sges[j]
		switch {
		case s.MR == nil:
			return 0, refuse(op, i, syscall.EINVAL, "SGE %d names no memory region", j)
		case s.MR.obj.closed:
			return 0, refuse(op, i, ErrClosed, "SGE %d: %s was closed", j, s.MR)
		case !s.MR.inRange(s.Offset, uint64(s.Length)):
			return 0, refuse(op, i, syscall.EINVAL,
				"SGE %d: %d bytes at offset %d run past the end of %s: an SGE must lie inside its region, or the device would read or write memory it was never given",
				j, s.Length, s.Offset, s.MR)
		}
		total += uint64(s.Length)
	}
	return total, nil
}

// checkRecvs checks a batch of receive requests.
func checkRecvs(op string, wrs []RecvWR, maxSGE uint32) error {
	for i := range wrs {
		if n := uint32(len(wrs[i].SGEs)); n > maxSGE {
			return refuse(op, i, syscall.EINVAL, "%d SGEs, but the queue was created with max_recv_sge %d", n, maxSGE)
		}
		if _, err := checkSGEs(op, i, wrs[i].SGEs); err != nil {
			return err
		}
	}
	return nil
}

// PostRecv posts receive requests in one ibv_post_recv(3) call, checked
// and chained like PostSend. A QP created with an SRQ takes its receives
// from the SRQ: post them there.
func (qp *QP) PostRecv(wrs []RecvWR) error {
	const op = "ibv_post_recv"
	if len(wrs) == 0 {
		return nil
	}
	if qp.init.SRQ != nil {
		return refuse(op, 0, syscall.EINVAL, "QP %d takes its receives from %s: post them with SRQ.PostRecv", qp.num, qp.init.SRQ.obj.name)
	}
	return qp.obj.use(op, func() error {
		qp.ctx.dataMu.RLock()
		defer qp.ctx.dataMu.RUnlock()
		if err := checkRecvs(op, wrs, qp.cap.MaxRecvSGE); err != nil {
			return err
		}
		return qp.h.postRecv(wrs)
	})
}
