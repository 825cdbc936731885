package verbs

import (
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"syscall"
)

// QPInitAttr is struct ibv_qp_init_attr (ibv_create_qp(3)).
type QPInitAttr struct {
	Type   QPType
	SendCQ *CQ
	RecvCQ *CQ
	Cap    QPCap
	// SigAll makes every send WR generate a completion (sq_sig_all);
	// otherwise only WRs posted with rdma.SendSignaled do.
	SigAll bool
	// SRQ, if set, is where the QP takes its receives from (struct
	// ibv_qp_init_attr.srq); Cap.MaxRecvWR and MaxRecvSGE are then ignored.
	SRQ *SRQ
}

// QP is a queue pair (ibv_create_qp(3)). It starts in RESET; Modify
// walks it through INIT, RTR and RTS.
type QP struct {
	ctx  *Context
	pd   *PD
	obj  *object
	h    *qpHandle
	typ  QPType
	num  uint32
	cap  QPCap
	init QPInitAttr
}

// CreateQP creates a queue pair in the PD (ibv_create_qp(3)). The CQs
// must come from the same context. The caps the provider really granted
// (often more than asked) are in Cap().
func (pd *PD) CreateQP(init QPInitAttr) (*QP, error) {
	c := pd.ctx
	if init.SendCQ == nil || init.RecvCQ == nil {
		return nil, &Error{Op: "ibv_create_qp", Err: syscall.EINVAL, Hint: "a QP needs a send CQ and a receive CQ (they may be the same CQ)"}
	}
	if init.SendCQ.ctx != c || init.RecvCQ.ctx != c {
		return nil, &Error{Op: "ibv_create_qp", Err: syscall.EINVAL, Hint: "the CQs belong to another device context"}
	}
	if init.SRQ != nil && init.SRQ.pd != pd {
		return nil, &Error{Op: "ibv_create_qp", Err: syscall.EINVAL, Hint: "the SRQ belongs to another PD"}
	}
	q := qpCreate{typ: init.Type, send: init.SendCQ.h, recv: init.RecvCQ.h, cap: init.Cap, sigAll: init.SigAll}
	var srqObj *object
	if init.SRQ != nil {
		q.srq, srqObj = init.SRQ.h, init.SRQ.obj
	}
	var h *qpHandle
	var granted QPCap
	var num uint32
	err := useAll("ibv_create_qp", []*object{pd.obj, init.SendCQ.obj, init.RecvCQ.obj, srqObj}, func() (err error) {
		h, num, granted, err = pd.h.createQP(q)
		return err
	})
	if err != nil {
		return nil, err
	}
	qp := &QP{ctx: c, pd: pd, h: h, typ: init.Type, num: num, cap: granted, init: init}
	qp.init.Cap = granted
	reg, addr := &c.reg, h.addr()
	qp.obj = &object{kind: "QP", rank: rankQP, name: fmt.Sprintf("QP %d (%s)", num, init.Type), destroy: func() error {
		if err := h.destroy(); err != nil {
			return err
		}
		reg.remove(addr)
		return nil
	}}
	c.register(qp.obj, pd.obj, init.SendCQ.obj, init.RecvCQ.obj, srqObj)
	add(reg, addr, qp)
	watch(qp, qp.obj)
	return qp, nil
}

// qpCreate is what ibv_create_qp(3) needs, in handles.
type qpCreate struct {
	typ        QPType
	send, recv *cqHandle
	srq        *srqHandle // nil without
	cap        QPCap
	sigAll     bool
}

// useAll runs fn with every non-nil object held against a destroy.
func useAll(op string, objs []*object, fn func() error) error {
	for len(objs) > 0 && objs[0] == nil {
		objs = objs[1:]
	}
	if len(objs) == 0 {
		return fn()
	}
	return objs[0].use(op, func() error { return useAll(op, objs[1:], fn) })
}

// Num is the QP number (struct ibv_qp.qp_num) a peer puts in DEST_QPN.
func (qp *QP) Num() uint32 { return qp.num }

// Type is the QP's transport type (struct ibv_qp.qp_type).
func (qp *QP) Type() QPType { return qp.typ }

// Cap is what ibv_create_qp(3) granted.
func (qp *QP) Cap() QPCap { return qp.cap }

// InitAttr is what the QP was created with (struct ibv_qp_init_attr,
// granted caps included).
func (qp *QP) InitAttr() QPInitAttr { return qp.init }

// PD is the protection domain the QP was created in (struct ibv_qp.pd).
func (qp *QP) PD() *PD { return qp.pd }

// Modify changes the QP's attributes named by mask (ibv_modify_qp(3)),
// exactly as given: it does not check them against the state machine
// first, so the kernel's own verdict comes back. Check does the checking.
func (qp *QP) Modify(attr *QPAttr, mask QPAttrMask) error {
	return qp.obj.use("ibv_modify_qp", func() error {
		return qp.h.modify(attr, mask)
	})
}

// Query returns the QP's current attributes (ibv_query_qp(3)). mask says
// which the caller wants; providers may fill in more.
func (qp *QP) Query(mask QPAttrMask) (QPAttr, error) {
	var a QPAttr
	err := qp.obj.use("ibv_query_qp", func() (err error) {
		a, err = qp.h.query(mask)
		return err
	})
	return a, err
}

// State is the QP's current state as ibv_query_qp(3) reports it.
func (qp *QP) State() (QPState, error) {
	a, err := qp.Query(rdma.AttrState)
	return a.State, err
}

// Close destroys the QP (ibv_destroy_qp(3)). It is idempotent.
func (qp *QP) Close() error { return qp.ctx.closeObject(qp.obj) }

// Destroy is the bare ibv_destroy_qp(3); unlike Close it reports a second
// destroy as ErrClosed.
func (qp *QP) Destroy() error { return qp.ctx.destroyObject(qp.obj) }

// Closed reports whether the QP was destroyed, by Close, Destroy, or a
// Close of something it depended on.
func (qp *QP) Closed() bool { return qp.obj.isClosed() }
