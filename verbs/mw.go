package verbs

import (
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"sync/atomic"
	"syscall"
)

// MWType is enum ibv_mw_type (ibv_alloc_mw(3)).
type MWType int

// Memory window types, values as in verbs.h.
const (
	// MWType1 windows are bound with ibv_bind_mw(3) (QP.BindMW) and
	// stay bound until bound again.
	MWType1 MWType = 1
	// MWType2 windows are bound by a BIND_MW work request (SendWR.Bind,
	// ibv_post_send(3)) and freed again by LOCAL_INV or a remote
	// SEND_WITH_INV.
	MWType2 MWType = 2
)

// String names the type as ibv_alloc_mw(3) does (IBV_MW_TYPE_1/2).
func (t MWType) String() string {
	if t == 1 || t == 2 {
		return fmt.Sprintf("type %d", int(t))
	}
	return rdma.Unknown(int(t))
}

// MW is a memory window (ibv_alloc_mw(3)): a remote key for a slice of an
// MR, granted and revoked without re-registering the MR. The MR needs
// rdma.AccessMWBind.
type MW struct {
	ctx  *Context
	pd   *PD
	obj  *object
	h    *mwHandle
	typ  MWType
	rkey atomic.Uint32
}

// MWBind describes one bind: which MR, which part of it, and what a peer
// may do through the window (struct ibv_mw_bind_info, ibv_bind_mw(3)).
type MWBind struct {
	MW     *MW
	MR     *MR
	Offset uint64 // where the window starts in the MR
	Length uint64
	Access AccessFlags // rdma.AccessRemoteRead/Write/Atomic for the window
	// RKey is the window's new rkey for a type 2 bind (IBV_WR_BIND_MW);
	// 0 means ibv_inc_rkey(MW.RKey()). Type 1 binds pick their own.
	RKey uint32
}

// AllocMW allocates a memory window of the given type (ibv_alloc_mw(3)).
func (pd *PD) AllocMW(typ MWType) (*MW, error) {
	if typ != MWType1 && typ != MWType2 {
		return nil, &Error{Op: "ibv_alloc_mw", Err: syscall.EINVAL, Hint: fmt.Sprintf("window type %d does not exist: use MWType1 or MWType2", int(typ))}
	}
	var h *mwHandle
	var rkey uint32
	err := pd.obj.use("ibv_alloc_mw", func() (err error) {
		h, rkey, err = pd.h.allocMW(typ)
		return err
	})
	if err != nil {
		return nil, err
	}
	mw := &MW{ctx: pd.ctx, pd: pd, h: h, typ: typ}
	mw.rkey.Store(rkey)
	mw.obj = &object{kind: "MW", rank: rankMW, destroy: h.destroy, data: true, name: fmt.Sprintf("MW rkey 0x%x (%s)", rkey, typ)}
	pd.ctx.register(mw.obj, pd.obj)
	watch(mw, mw.obj)
	return mw, nil
}

// Type is the window's type (struct ibv_mw.type).
func (mw *MW) Type() MWType { return mw.typ }

// RKey is the window's current remote key (struct ibv_mw.rkey). A bind
// changes it: a type 1
// bind as soon as it is posted (as libibverbs does), a type 2 bind when
// its work request is posted with the RKey it carries.
func (mw *MW) RKey() uint32 { return mw.rkey.Load() }

// Close deallocates the window (ibv_dealloc_mw(3)). It is idempotent.
func (mw *MW) Close() error { return mw.ctx.closeObject(mw.obj) }

// Destroy is the bare ibv_dealloc_mw(3).
func (mw *MW) Destroy() error { return mw.ctx.destroyObject(mw.obj) }

// incRKey is ibv_inc_rkey(3): the next key with the same index, its low
// 8 bits (the "key" a consumer owns) incremented.
func incRKey(rkey uint32) uint32 { return rkey&^0xff | (rkey+1)&0xff }

// BindMW binds a type 1 window to part of an MR by posting a bind on
// this QP's send queue (ibv_bind_mw(3)); the window's new rkey is
// MW.RKey() at once, usable when the bind's completion (opcode BIND_MW)
// arrives. Unsignaled binds complete silently unless the QP signals all.
func (qp *QP) BindMW(b MWBind, wrID uint64, flags SendFlags) error {
	const op = "ibv_bind_mw"
	if err := checkBind(op, &b); err != nil {
		return err
	}
	if b.MW.typ != MWType1 {
		return &Error{Op: op, Err: syscall.EINVAL, Hint: "ibv_bind_mw binds type 1 windows; bind a type 2 window with a BIND_MW work request (SendWR.Bind)"}
	}
	err := qp.obj.use(op, func() error {
		qp.ctx.dataMu.RLock()
		defer qp.ctx.dataMu.RUnlock()
		if b.MW.obj.closed || b.MR.obj.closed {
			return &Error{Op: op, Err: ErrClosed, Hint: "the window or the region was closed"}
		}
		rkey, err := qp.h.bindMW(b.MW.h, b.MR.h, b.MR.Addr()+b.Offset, b.Length, b.Access, wrID, flags)
		if err == nil {
			b.MW.rkey.Store(rkey)
		}
		return err
	})
	if err == nil {
		qp.ctx.link(b.MW.obj, b.MR.obj)
	}
	return err
}

// checkBind refuses a bind the library would reject or misreport.
func checkBind(op string, b *MWBind) error {
	switch {
	case b.MW == nil:
		return &Error{Op: op, Err: syscall.EINVAL, Hint: "the bind names no memory window"}
	case b.MR == nil:
		return &Error{Op: op, Err: syscall.EINVAL, Hint: "the bind names no memory region"}
	case b.MR.access&rdma.AccessMWBind == 0:
		return &Error{Op: op, Err: syscall.EINVAL, Hint: b.MR.String() + " was registered without MW_BIND access: register it with rdma.AccessMWBind to bind windows to it"}
	case !b.MR.inRange(b.Offset, b.Length):
		return &Error{Op: op, Err: syscall.EINVAL, Hint: fmt.Sprintf("a window of %d bytes at offset %d does not fit in %s", b.Length, b.Offset, b.MR)}
	case b.MW.pd != b.MR.pd:
		return &Error{Op: op, Err: syscall.EPERM, Hint: "the window and the region belong to different PDs"}
	}
	return nil
}
