package verbs

import (
	"fmt"
	"sync/atomic"
	"syscall"
)

// CompChannel is a completion event channel (ibv_create_comp_channel(3)):
// a file descriptor on which CQs armed with ReqNotify report completions,
// so a program can sleep instead of polling.
type CompChannel struct {
	ctx *Context
	obj *object
	h   *chanHandle
}

// String names the channel for messages by its fd (struct
// ibv_comp_channel.fd).
func (cc *CompChannel) String() string { return cc.obj.name }

// CreateCompChannel creates a completion channel (ibv_create_comp_channel(3)).
func (c *Context) CreateCompChannel() (*CompChannel, error) {
	var h *chanHandle
	err := c.withCtx("ibv_create_comp_channel", func(ch *ctxHandle) (err error) {
		h, err = ch.createCompChannel()
		return err
	})
	if err != nil {
		return nil, err
	}
	cc := &CompChannel{ctx: c, h: h, obj: &object{kind: "channel", rank: rankChannel, destroy: h.destroy}}
	cc.obj.name = fmt.Sprintf("completion channel (fd %d)", h.fd())
	c.register(cc.obj)
	watch(cc, cc.obj)
	return cc, nil
}

// Closed reports whether the channel was destroyed.
func (cc *CompChannel) Closed() bool { return cc.obj.isClosed() }

// Close destroys the CQs that use the channel, then the channel
// (ibv_destroy_comp_channel(3)). It is idempotent.
func (cc *CompChannel) Close() error { return cc.ctx.closeObject(cc.obj) }

// CQ is a completion queue (ibv_create_cq(3)).
type CQ struct {
	ctx *Context
	obj *object
	h   *cqHandle
	ch  *CompChannel
	cqe int
	// spins counts BusyPoll's spins, to yield to the Go scheduler now
	// and then.
	spins atomic.Uint32
}

// CreateCQ creates a completion queue for at least cqe entries
// (ibv_create_cq(3)). ch may be nil (then the CQ can only be polled);
// vector picks the completion vector, below NumCompVectors.
func (c *Context) CreateCQ(cqe int, ch *CompChannel, vector int) (*CQ, error) {
	if cqe < 1 {
		return nil, &Error{Op: "ibv_create_cq", Err: syscall.EINVAL, Hint: "a CQ needs at least one entry"}
	}
	var chh *chanHandle
	var chObj *object
	if ch != nil {
		if ch.ctx != c {
			return nil, &Error{Op: "ibv_create_cq", Err: syscall.EINVAL, Hint: "the completion channel belongs to another device context"}
		}
		chh, chObj = ch.h, ch.obj
	}
	var h *cqHandle
	var actual int
	err := c.withCtx("ibv_create_cq", func(ctxh *ctxHandle) error {
		if chObj == nil {
			var err error
			h, actual, err = ctxh.createCQ(cqe, nil, vector)
			return err
		}
		return chObj.use("ibv_create_cq", func() (err error) {
			h, actual, err = ctxh.createCQ(cqe, chh, vector)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	reg, addr := &c.reg, h.addr()
	cq := &CQ{ctx: c, h: h, ch: ch, cqe: actual, obj: &object{kind: "CQ", rank: rankCQ, destroy: func() error {
		// h.destroy acknowledges the events Wait counted first, or
		// ibv_destroy_cq(3) would wait for them forever.
		if err := h.destroy(); err != nil {
			return err
		}
		reg.remove(addr)
		return nil
	}}}
	c.register(cq.obj, chObj)
	add(reg, addr, cq)
	watch(cq, cq.obj)
	return cq, nil
}

// CQE is the number of entries the CQ really has (struct ibv_cq.cqe);
// providers round the
// requested size up (rxe to a power of two minus one).
func (cq *CQ) CQE() int { return cq.cqe }

// Channel is the completion channel the CQ reports to, or nil
// (ibv_create_cq(3)'s channel).
func (cq *CQ) Channel() *CompChannel { return cq.ch }

// Close destroys the QPs that use the CQ, then the CQ (ibv_destroy_cq(3)).
// It is idempotent.
func (cq *CQ) Close() error { return cq.ctx.closeObject(cq.obj) }

// Destroy is the bare ibv_destroy_cq(3): EBUSY while a QP still uses it.
func (cq *CQ) Destroy() error { return cq.ctx.destroyObject(cq.obj) }

// Closed reports whether the CQ was destroyed, by Close, Destroy, or a
// Close of something it depended on.
func (cq *CQ) Closed() bool { return cq.obj.isClosed() }
