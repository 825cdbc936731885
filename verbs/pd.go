package verbs

// PD is a protection domain (ibv_alloc_pd(3)): the boundary that ties
// QPs, MRs and AHs together. A QP may only use memory registered in its
// own PD.
type PD struct {
	ctx *Context
	obj *object
	h   *pdHandle
}

// AllocPD allocates a protection domain (ibv_alloc_pd(3)).
func (c *Context) AllocPD() (*PD, error) {
	var h *pdHandle
	err := c.withCtx("ibv_alloc_pd", func(ch *ctxHandle) (err error) {
		h, err = ch.allocPD()
		return err
	})
	if err != nil {
		return nil, err
	}
	pd := &PD{ctx: c, h: h, obj: &object{kind: "PD", rank: rankPD, destroy: h.dealloc}}
	c.register(pd.obj)
	watch(pd, pd.obj)
	return pd, nil
}

// Context is the device context the PD belongs to (struct
// ibv_pd.context).
func (pd *PD) Context() *Context { return pd.ctx }

// Close destroys everything created in the PD (QPs, MRs, AHs, SRQs),
// then the PD itself (ibv_dealloc_pd(3)). It is idempotent.
func (pd *PD) Close() error { return pd.ctx.closeObject(pd.obj) }

// Destroy is the bare ibv_dealloc_pd(3): it fails with EBUSY, as the
// library does, while QPs, MRs or AHs still use the PD.
func (pd *PD) Destroy() error { return pd.ctx.destroyObject(pd.obj) }

// Closed reports whether the PD was destroyed, by Close, Destroy, or a
// Close of something it depended on.
func (pd *PD) Closed() bool { return pd.obj.isClosed() }
