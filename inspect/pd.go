package inspect

// PD is one protection domain as RDMA_NLDEV_CMD_RES_PD_GET reports it
// (fill_res_pd_entry in drivers/infiniband/core/nldev.c; `rdma resource
// show pd`, rdma-resource(8)). The keys need CAP_NET_ADMIN.
type PD struct {
	Object
	PDN          uint32 // RDMA_NLDEV_ATTR_RES_PDN
	LocalDMALKey uint32 // RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY (CAP_NET_ADMIN)
	// UnsafeGlobalRKey is RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY, sent
	// only for PDs created with IB_PD_UNSAFE_GLOBAL_RKEY.
	UnsafeGlobalRKey uint32
	Users            uint64 // RDMA_NLDEV_ATTR_RES_USECNT
	CtxN             uint32 // RDMA_NLDEV_ATTR_RES_CTXN (user PDs only)
}

var pdKind = kind[PD]{
	name: "pd", cmd: CmdResPDGet, table: AttrResPD, entry: AttrResPDEntry,
	required: []Attr{AttrResUseCnt}, // rdma/res-pd.c res_pd_line
	obj:      func(p *PD) *Object { return &p.Object },
	field: func(it *attrIter, p *PD) {
		switch it.typ {
		case AttrResPDN:
			p.PDN = it.u32()
		case AttrResLocalDMALKey:
			p.LocalDMALKey = it.u32()
		case AttrResUnsafeGlobalRKey:
			p.UnsafeGlobalRKey = it.u32()
		case AttrResUseCnt:
			p.Users = it.u64()
		case AttrResCtxN:
			p.CtxN = it.u32()
		}
	},
}

// PDs dumps the protection domains of the devices q selects.
func (c *Conn) PDs(q Query) ([]PD, error) { return dumpKind(c, &pdKind, q, c.freshComm()) }
