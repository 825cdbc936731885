package inspect

// CQ is one completion queue as RDMA_NLDEV_CMD_RES_CQ_GET reports it
// (fill_res_cq_entry in drivers/infiniband/core/nldev.c; `rdma resource
// show cq`, rdma-resource(8)).
type CQ struct {
	Object
	CQN   uint32 // RDMA_NLDEV_ATTR_RES_CQN
	CQE   uint32 // RDMA_NLDEV_ATTR_RES_CQE: the CQ's size
	Users uint64 // RDMA_NLDEV_ATTR_RES_USECNT: QPs and others using it
	// PollCtx is RDMA_NLDEV_ATTR_RES_POLL_CTX, sent for kernel CQs only.
	PollCtx PollCtx
	// DIM is RDMA_NLDEV_ATTR_DEV_DIM: 1 when adaptive moderation is on.
	DIM  uint8
	CtxN uint32 // RDMA_NLDEV_ATTR_RES_CTXN (user CQs only)
}

var cqKind = kind[CQ]{
	name: "cq", cmd: CmdResCQGet, table: AttrResCQ, entry: AttrResCQEntry,
	required: []Attr{AttrResCQE, AttrResUseCnt}, // rdma/res-cq.c res_cq_line
	obj:      func(q *CQ) *Object { return &q.Object },
	field: func(it *attrIter, q *CQ) {
		switch it.typ {
		case AttrResCQN:
			q.CQN = it.u32()
		case AttrResCQE:
			q.CQE = it.u32()
		case AttrResUseCnt:
			q.Users = it.u64()
		case AttrResPollCtx:
			q.PollCtx = PollCtx(it.u8())
		case AttrDevDIM:
			q.DIM = it.u8()
		case AttrResCtxN:
			q.CtxN = it.u32()
		}
	},
}

// CQs dumps the completion queues of the devices q selects.
func (c *Conn) CQs(q Query) ([]CQ, error) { return dumpKind(c, &cqKind, q, c.freshComm()) }
