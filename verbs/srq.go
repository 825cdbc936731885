package verbs

import "syscall"

// SRQAttr is struct ibv_srq_attr (ibv_create_srq(3), ibv_modify_srq(3)).
type SRQAttr struct {
	MaxWR  uint32 // receive requests the queue holds
	MaxSGE uint32 // SGEs per receive request
	// Limit arms the SRQ_LIMIT_REACHED event: it fires once when fewer
	// than Limit receives remain posted. 0 disarms.
	Limit uint32
}

// SRQAttrMask is enum ibv_srq_attr_mask (ibv_modify_srq(3)).
type SRQAttrMask int

// SRQ attribute mask bits, values as in verbs.h.
const (
	SRQMaxWR SRQAttrMask = 1 << 0 // resize (where the device can)
	SRQLimit SRQAttrMask = 1 << 1 // arm the limit event
)

// SRQ is a shared receive queue (ibv_create_srq(3)): one pool of receive
// requests for many QPs, created with QPInitAttr.SRQ.
type SRQ struct {
	ctx  *Context
	pd   *PD
	obj  *object
	h    *srqHandle
	attr SRQAttr
}

// CreateSRQ creates a shared receive queue in the PD (ibv_create_srq(3)).
// The sizes the provider granted are in Attr().
func (pd *PD) CreateSRQ(attr SRQAttr) (*SRQ, error) {
	if attr.MaxWR == 0 || attr.MaxSGE == 0 {
		return nil, &Error{Op: "ibv_create_srq", Err: syscall.EINVAL, Hint: "an SRQ needs MaxWR and MaxSGE of at least 1"}
	}
	var h *srqHandle
	var granted SRQAttr
	err := pd.obj.use("ibv_create_srq", func() (err error) {
		h, granted, err = pd.h.createSRQ(attr)
		return err
	})
	if err != nil {
		return nil, err
	}
	s := &SRQ{ctx: pd.ctx, pd: pd, h: h, attr: granted}
	reg := &pd.ctx.reg
	addr := h.addr()
	s.obj = &object{kind: "SRQ", rank: rankSRQ, destroy: func() error {
		if err := h.destroy(); err != nil {
			return err
		}
		reg.remove(addr)
		return nil
	}}
	pd.ctx.register(s.obj, pd.obj)
	add(reg, addr, s)
	watch(s, s.obj)
	return s, nil
}

// Attr is what the provider granted at creation.
func (s *SRQ) Attr() SRQAttr { return s.attr }

// Query reads the SRQ's current attributes (ibv_query_srq(3)).
func (s *SRQ) Query() (SRQAttr, error) {
	var a SRQAttr
	err := s.obj.use("ibv_query_srq", func() (err error) {
		a, err = s.h.query()
		return err
	})
	return a, err
}

// Modify changes the attributes named by mask (ibv_modify_srq(3)):
// SRQLimit arms the limit event, SRQMaxWR resizes.
func (s *SRQ) Modify(attr SRQAttr, mask SRQAttrMask) error {
	return s.obj.use("ibv_modify_srq", func() error { return s.h.modify(attr, mask) })
}

// PostRecv posts receive requests to the SRQ in one call
// (ibv_post_srq_recv(3)); see QP.PostRecv for the rules.
func (s *SRQ) PostRecv(wrs []RecvWR) error {
	return s.obj.use("ibv_post_srq_recv", func() error {
		s.ctx.dataMu.RLock()
		defer s.ctx.dataMu.RUnlock()
		if err := checkRecvs("ibv_post_srq_recv", wrs, s.attr.MaxSGE); err != nil {
			return err
		}
		return s.h.postRecv(wrs)
	})
}

// Close destroys the QPs that use the SRQ, then the SRQ
// (ibv_destroy_srq(3)). It is idempotent.
func (s *SRQ) Close() error { return s.ctx.closeObject(s.obj) }

// Destroy is the bare ibv_destroy_srq(3): EBUSY while QPs use it.
func (s *SRQ) Destroy() error { return s.ctx.destroyObject(s.obj) }
