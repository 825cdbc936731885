package verbs

import (
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"io"
	"syscall"
)

// MR is a registered memory region (ibv_reg_mr(3)): a buffer the device
// may read and write, named locally by LKey and remotely by RKey. The
// buffer is an anonymous mmap of its own (page-aligned, never on the Go
// heap, so the garbage collector never moves or frees memory the device
// uses).
type MR struct {
	ctx    *Context
	pd     *PD
	obj    *object
	h      *mrHandle
	buf    []byte // the registered bytes, a view of the mapping
	access AccessFlags
	lkey   uint32
	rkey   uint32
}

// RegMR maps size bytes of fresh, zeroed, page-aligned memory and
// registers them in the PD with the given access (ibv_reg_mr(3)). Remote
// write and remote atomic access need rdma.AccessLocalWrite too, as the man
// page says; the kernel refuses the combination otherwise (EINVAL).
func (pd *PD) RegMR(size int, access AccessFlags) (*MR, error) {
	if size <= 0 {
		return nil, &Error{Op: "ibv_reg_mr", Err: syscall.EINVAL, Hint: fmt.Sprintf("a memory region needs at least one byte, not %d", size)}
	}
	if access&(rdma.AccessRemoteWrite|rdma.AccessRemoteAtomic) != 0 && access&rdma.AccessLocalWrite == 0 {
		return nil, &Error{Op: "ibv_reg_mr", Err: syscall.EINVAL, Hint: "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE as well (ibv_reg_mr(3)): add rdma.AccessLocalWrite"}
	}
	var h *mrHandle
	var buf []byte
	var lkey, rkey uint32
	err := pd.obj.use("ibv_reg_mr", func() (err error) {
		h, buf, lkey, rkey, err = pd.h.regMR(size, access)
		return err
	})
	if err != nil {
		return nil, err
	}
	mr := &MR{ctx: pd.ctx, pd: pd, h: h, buf: buf, access: access, lkey: lkey, rkey: rkey}
	mr.obj = &object{kind: "MR", rank: rankMR, destroy: h.destroy, data: true,
		name: fmt.Sprintf("MR lkey 0x%x (%d bytes)", lkey, size)}
	pd.ctx.register(mr.obj, pd.obj)
	watch(mr, mr.obj)
	return mr, nil
}

// Bytes is the registered buffer itself (struct ibv_mr.addr, length
// bytes), for reading what the device wrote and writing what it will send.
// It is valid until Close: the
// memory is unmapped then, and touching the slice afterwards crashes.
// Copy out what must outlive the MR.
func (mr *MR) Bytes() []byte { return mr.buf }

// ReadAt copies from the registered buffer at off (io.ReaderAt); it
// fails with ErrClosed after ibv_dereg_mr(3) instead of touching
// unmapped memory.
func (mr *MR) ReadAt(p []byte, off int64) (int, error) {
	var n int
	err := mr.obj.use("MR read", func() error {
		if off < 0 || off > int64(len(mr.buf)) {
			return &Error{Op: "MR read", Err: syscall.EINVAL, Hint: fmt.Sprintf("offset %d is outside the %d-byte region", off, len(mr.buf))}
		}
		n = copy(p, mr.buf[off:])
		return nil
	})
	if err == nil && n < len(p) {
		err = io.EOF
	}
	return n, err
}

// WriteAt copies p into the registered buffer at off (io.WriterAt); a
// write past the end copies nothing and says how big the region is, as
// the device would refuse it (ibv_reg_mr(3) fixes the length).
func (mr *MR) WriteAt(p []byte, off int64) (int, error) {
	var n int
	err := mr.obj.use("MR write", func() error {
		if off < 0 || off+int64(len(p)) > int64(len(mr.buf)) {
			return &Error{Op: "MR write", Err: syscall.EINVAL,
				Hint: fmt.Sprintf("%d bytes at offset %d do not fit in the %d-byte region", len(p), off, len(mr.buf))}
		}
		n = copy(mr.buf[off:], p)
		return nil
	})
	return n, err
}

// Addr is the buffer's virtual address (struct ibv_mr.addr): what a peer
// puts in RemoteAddr, offset by where in the region it wants to write.
func (mr *MR) Addr() uint64 { return mr.h.addr() }

// Len is the registered length in bytes (struct ibv_mr.length).
func (mr *MR) Len() int { return len(mr.buf) }

// LKey is the local key (struct ibv_mr.lkey) SGEs use.
func (mr *MR) LKey() uint32 { return mr.lkey }

// RKey is the remote key (struct ibv_mr.rkey) a peer needs for RDMA and
// atomics on this region.
func (mr *MR) RKey() uint32 { return mr.rkey }

// Access is the access the region was registered with (ibv_reg_mr(3)
// access flags).
func (mr *MR) Access() AccessFlags { return mr.access }

// PD is the protection domain the region belongs to (struct ibv_mr.pd).
func (mr *MR) PD() *PD { return mr.pd }

// String names the region for messages by its lkey (struct ibv_mr.lkey)
// and length.
func (mr *MR) String() string { return mr.obj.name }

// Close deregisters the region (ibv_dereg_mr(3)) after the memory
// windows bound to it, then unmaps its memory. It is idempotent.
func (mr *MR) Close() error { return mr.ctx.closeObject(mr.obj) }

// Destroy is the bare ibv_dereg_mr(3) plus the unmap: it fails as the
// kernel does while memory windows are still bound to the region.
func (mr *MR) Destroy() error { return mr.ctx.destroyObject(mr.obj) }

// inRange reports whether [off, off+n) lies inside the region, without
// overflowing on hostile values.
func (mr *MR) inRange(off, n uint64) bool {
	size := uint64(len(mr.buf))
	return off <= size && n <= size-off
}
