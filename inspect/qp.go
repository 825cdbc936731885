package inspect

// QP is one queue pair as RDMA_NLDEV_CMD_RES_QP_GET reports it
// (fill_res_qp_entry and fill_res_qp_entry_query in
// drivers/infiniband/core/nldev.c; `rdma resource show qp`,
// rdma-resource(8)). The kernel calls ib_query_qp() for every entry of
// every dump, so State and the PSNs are live. Restrack does not expose a
// QP's CQs, SRQ, capabilities, path MTU, timeouts or address vector.
type QP struct {
	Object
	// Port is RDMA_NLDEV_ATTR_PORT_INDEX; zero (and absent) while the QP
	// has no port yet: created, still in RESET before INIT set it.
	Port  uint32
	LQPN  uint32 // RDMA_NLDEV_ATTR_RES_LQPN: the local QP number
	RQPN  uint32 // RDMA_NLDEV_ATTR_RES_RQPN: the remote QP (RC and UC only)
	RQPSN uint32 // RDMA_NLDEV_ATTR_RES_RQ_PSN (RC and UC only)
	SQPSN uint32 // RDMA_NLDEV_ATTR_RES_SQ_PSN
	// PathMigState is RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE (RC, UC, XRC).
	PathMigState PathMigState
	Type         QPType  // RDMA_NLDEV_ATTR_RES_TYPE
	State        QPState // RDMA_NLDEV_ATTR_RES_STATE
	PDN          uint32  // RDMA_NLDEV_ATTR_RES_PDN (user QPs only)
	// Subtype names a driver QP (Type DRIVER), e.g. mlx5's "DCT"
	// (RDMA_NLDEV_ATTR_RES_SUBTYPE, newer kernels).
	Subtype string
}

var qpKind = kind[QP]{
	name: "qp", cmd: CmdResQPGet, table: AttrResQP, entry: AttrResQPEntry, perPort: true,
	// rdma/res-qp.c res_qp_line refuses entries without these.
	required: []Attr{AttrResLQPN, AttrResSQPSN, AttrResType, AttrResState},
	obj:      func(q *QP) *Object { return &q.Object },
	port:     func(q *QP) uint32 { return q.Port },
	resID:    func(q *QP) uint32 { return qpResID(q.Port, q.LQPN) },
	field: func(it *attrIter, q *QP) {
		switch it.typ {
		case AttrPortIndex:
			q.Port = it.u32()
		case AttrResLQPN:
			q.LQPN = it.u32()
		case AttrResRQPN:
			q.RQPN = it.u32()
		case AttrResRQPSN:
			q.RQPSN = it.u32()
		case AttrResSQPSN:
			q.SQPSN = it.u32()
		case AttrResPathMigState:
			q.PathMigState = PathMigState(it.u8())
		case AttrResType:
			q.Type = QPType(it.u8())
		case AttrResState:
			q.State = QPState(it.u8())
		case AttrResPDN:
			q.PDN = it.u32()
		case AttrResSubtype:
			q.Subtype = it.str()
		}
	},
}

// QPs dumps the queue pairs of all processes and the kernel, for the
// devices and port q selects, in the order `rdma resource show qp` prints
// them.
func (c *Conn) QPs(q Query) ([]QP, error) {
	return dumpKind(c, &qpKind, q, c.freshComm())
}
