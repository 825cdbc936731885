package inspect

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
)

// qpGet reads one QP: RDMA_NLDEV_CMD_RES_QP_GET without NLM_F_DUMP
// (res_get_common_doit in drivers/infiniband/core/nldev.c), which
// answers with the same attributes a dump's entry has, after the
// device's, for the QP of restrack id resID (qpResID) on port. QPs are tracked per port,
// so the kernel refuses a get without one (EINVAL) and answers EAGAIN
// for a QP on another port (fill_res_qp_entry): errDumpQPs then, and for
// port 0. found is false when the QP is gone (ENOENT from
// rdma_restrack_get_byid).
func (c *Conn) qpGet(ctx context.Context, d Device, port, resID uint32, cc *commCache) (q QP, found bool, err error) {
	if port == 0 {
		return q, false, errDumpQPs
	}
	op := fmt.Sprintf("qp get: %s/%d qp %d", d.Name, port, resID&0xffffff)
	r := request{cmd: CmdResQPGet, attrs: []reqAttr{{typ: AttrDevIndex, u32: d.Index}, {typ: AttrPortIndex, u32: port}, {typ: AttrResLQPN, u32: resID}}}
	err = c.do(ctx, op, r, func(m netlink.Message) error {
		h, _, _, err := splitReply(m.Data, AttrResQP, d.Name, nil)
		if err != nil {
			return malformed(op, err)
		}
		if err := decodeEntry(&qpKind, new(attrIter), m.Data, h, &q); err != nil {
			return malformed(op, fmt.Errorf("the reply%w", err))
		}
		found = true
		return nil
	})
	switch {
	case errors.Is(err, syscall.ENOENT):
		return QP{}, false, nil
	case errors.Is(err, syscall.EAGAIN):
		return QP{}, false, fmt.Errorf("%s: on another port: %w", op, errDumpQPs)
	}
	if err != nil || !found {
		return QP{}, false, err
	}
	// The reply's device attributes are the message's, not the QP's: a
	// dump's entry has none, and a QP read either way is the same.
	q.Attrs[AttrDevIndex>>6] &^= 1 << (AttrDevIndex & 63)
	q.Attrs[AttrDevName>>6] &^= 1 << (AttrDevName & 63)
	q.fillOwner(cc)
	return q, true, nil
}
