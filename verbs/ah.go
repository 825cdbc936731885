package verbs

import "fmt"

// AH is an address handle (ibv_create_ah(3)): the path to one remote
// port, named by UD send work requests. On RoCE it must be global (a GRH
// with the destination GID and the local GID index), since Ethernet has
// no LIDs.
type AH struct {
	ctx  *Context
	pd   *PD
	obj  *object
	h    *ahHandle
	attr AHAttr
}

// CreateAH creates an address handle in the PD (ibv_create_ah(3)). On
// RoCE the kernel resolves the destination MAC here, so an unreachable
// DGID fails now rather than at send time.
func (pd *PD) CreateAH(attr AHAttr) (*AH, error) {
	var h *ahHandle
	err := pd.obj.use("ibv_create_ah", func() (err error) {
		h, err = pd.h.createAH(&attr)
		return err
	})
	if err != nil {
		return nil, err
	}
	ah := &AH{ctx: pd.ctx, pd: pd, h: h, attr: attr}
	ah.obj = &object{kind: "AH", rank: rankAH, destroy: h.destroy, data: true, name: fmt.Sprintf("AH to %s", attr.GRH.DGID)}
	pd.ctx.register(ah.obj, pd.obj)
	watch(ah, ah.obj)
	return ah, nil
}

// Attr is what the handle was created with.
func (ah *AH) Attr() AHAttr { return ah.attr }

// Close destroys the handle (ibv_destroy_ah(3)). It is idempotent.
func (ah *AH) Close() error { return ah.ctx.closeObject(ah.obj) }

// Destroy is the bare ibv_destroy_ah(3).
func (ah *AH) Destroy() error { return ah.ctx.destroyObject(ah.obj) }
