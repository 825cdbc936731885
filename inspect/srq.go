package inspect

import "fmt"

// SRQ is one shared receive queue as RDMA_NLDEV_CMD_RES_SRQ_GET reports
// it (fill_res_srq_entry and fill_res_srq_qps in
// drivers/infiniband/core/nldev.c; `rdma resource show srq`,
// rdma-resource(8)).
type SRQ struct {
	Object
	SRQN uint32  // RDMA_NLDEV_ATTR_RES_SRQN
	Type SRQType // RDMA_NLDEV_ATTR_RES_TYPE: BASIC, XRC, TM
	PDN  uint32  // RDMA_NLDEV_ATTR_RES_PDN
	CQN  uint32  // RDMA_NLDEV_ATTR_RES_CQN (XRC and TM SRQs)
	// QPs are the QPs attached to the SRQ, as the kernel compresses them:
	// single LQPNs and [MIN_RANGE, MAX_RANGE] runs (a RES_QP nest).
	QPs []QPRange
}

// QPRange is a run of consecutive QP numbers, Min == Max for one QP.
type QPRange struct{ Min, Max uint32 }

var srqKind = kind[SRQ]{
	name: "srq", cmd: CmdResSRQGet, table: AttrResSRQ, entry: AttrResSRQEntry,
	required: []Attr{AttrResSRQN}, // rdma/res-srq.c res_srq_line
	obj:      func(s *SRQ) *Object { return &s.Object },
	field: func(it *attrIter, s *SRQ) {
		switch it.typ {
		case AttrResSRQN:
			s.SRQN = it.u32()
		case AttrResType:
			s.Type = SRQType(it.u8())
		case AttrResPDN:
			s.PDN = it.u32()
		case AttrResCQN:
			s.CQN = it.u32()
		case AttrResQP:
			qps, err := decodeQPRanges(it.val)
			if err != nil && it.err == nil {
				it.err = err
			}
			s.QPs = qps
		}
	},
}

// decodeQPRanges decodes the RES_QP nest of an SRQ: entries holding
// either RES_LQPN or MIN_RANGE and MAX_RANGE.
func decodeQPRanges(b []byte) ([]QPRange, error) {
	var out []QPRange
	err := forEachEntry(b, AttrResQPEntry, func(i int, payload []byte) error {
		var r QPRange
		var has AttrSet
		it := newAttrIter(payload)
		for it.next() {
			switch it.typ {
			case AttrResLQPN:
				r.Min = it.u32()
				r.Max = r.Min
			case AttrMinRange:
				r.Min = it.u32()
			case AttrMaxRange:
				r.Max = it.u32()
			}
			has.Add(it.typ)
		}
		switch {
		case it.err != nil:
			return fmt.Errorf("srq qp entry %d: %w", i, it.err)
		case has.Has(AttrResLQPN):
		case has.Has(AttrMinRange) && has.Has(AttrMaxRange) && r.Min <= r.Max:
		default:
			return fmt.Errorf("srq qp entry %d is neither a QPN nor a range", i)
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// SRQs dumps the shared receive queues of the devices q selects.
func (c *Conn) SRQs(q Query) ([]SRQ, error) { return dumpKind(c, &srqKind, q, c.freshComm()) }
