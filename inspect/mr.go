package inspect

// MR is one memory region as RDMA_NLDEV_CMD_RES_MR_GET reports it
// (fill_res_mr_entry in drivers/infiniband/core/nldev.c; `rdma resource
// show mr`, rdma-resource(8)). The keys are sent only to callers with
// CAP_NET_ADMIN; 6.1 sends no IOVA.
type MR struct {
	Object
	MRN  uint32 // RDMA_NLDEV_ATTR_RES_MRN
	RKey uint32 // RDMA_NLDEV_ATTR_RES_RKEY (CAP_NET_ADMIN)
	LKey uint32 // RDMA_NLDEV_ATTR_RES_LKEY (CAP_NET_ADMIN)
	IOVA uint64 // RDMA_NLDEV_ATTR_RES_IOVA (not sent by current kernels)
	Len  uint64 // RDMA_NLDEV_ATTR_RES_MRLEN
	PDN  uint32 // RDMA_NLDEV_ATTR_RES_PDN (user MRs only)
}

var mrKind = kind[MR]{
	name: "mr", cmd: CmdResMRGet, table: AttrResMR, entry: AttrResMREntry,
	required: []Attr{AttrResMRLen}, // rdma/res-mr.c res_mr_line
	obj:      func(m *MR) *Object { return &m.Object },
	field: func(it *attrIter, m *MR) {
		switch it.typ {
		case AttrResMRN:
			m.MRN = it.u32()
		case AttrResRKey:
			m.RKey = it.u32()
		case AttrResLKey:
			m.LKey = it.u32()
		case AttrResIOVA:
			m.IOVA = it.u64()
		case AttrResMRLen:
			m.Len = it.u64()
		case AttrResPDN:
			m.PDN = it.u32()
		}
	},
}

// MRs dumps the memory regions of the devices q selects.
func (c *Conn) MRs(q Query) ([]MR, error) { return dumpKind(c, &mrKind, q, c.freshComm()) }
