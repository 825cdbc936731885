package inspect

import (
	"context"
	"fmt"

	"github.com/mdlayher/netlink"
)

// Summary is a device's object counts as RDMA_NLDEV_CMD_RES_GET reports
// them (fill_res_info in nldev.c): what `rdma resource show` prints,
// "0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0". The counts include
// kernel objects (rxe always has its GSI QP, a CQ and a PD).
type Summary struct {
	DevIndex uint32
	DevName  string
	// Counts are the (name, current count) pairs in the kernel's order:
	// pd, cq, qp, cm_id, mr, ctx, srq on 6.1.
	Counts []SummaryCount
}

// SummaryCount is one RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY: the restrack
// type name and its current count (RES_SUMMARY_ENTRY_NAME, _CURR).
type SummaryCount struct {
	Name  string
	Count uint64
}

// Count returns the count for name ("qp", "cq", ...) and whether the
// kernel reported it.
func (s *Summary) Count(name string) (uint64, bool) {
	for _, c := range s.Counts {
		if c.Name == name {
			return c.Count, true
		}
	}
	return 0, false
}

// Summary returns the object counts of every device (dev empty) or of
// one, with a RDMA_NLDEV_CMD_RES_GET dump (nldev_res_get_dumpit).
func (c *Conn) Summary(dev string) ([]Summary, error) {
	return c.summary(context.Background(), dev)
}

func (c *Conn) summary(ctx context.Context, dev string) ([]Summary, error) {
	const op = "resource summary"
	var out []Summary
	err := c.do(ctx, op, request{cmd: CmdResGet, dump: true}, func(m netlink.Message) error {
		s, err := decodeSummary(m.Data)
		if err != nil {
			return malformed(op, err)
		}
		if dev == "" || s.DevName == dev {
			out = append(out, s)
		}
		return nil
	})
	if err == nil && dev != "" && len(out) == 0 {
		return nil, opError(fmt.Sprintf("%s: %q", op, dev), ErrNoDevice, nil)
	}
	return out, err
}

func decodeSummary(data []byte) (Summary, error) {
	h, tab, found, err := splitReply(data, AttrResSummary, "", nil)
	if err != nil {
		return Summary{}, err
	}
	if !found {
		return Summary{}, fmt.Errorf("reply for %s lacks RES_SUMMARY", h.name)
	}
	s := Summary{DevIndex: h.index, DevName: h.name}
	err = forEachEntry(tab, AttrResSummaryEntry, func(i int, payload []byte) error {
		var e SummaryCount
		var has AttrSet
		it := newAttrIter(payload)
		for it.next() {
			switch it.typ {
			case AttrResSummaryEntryName:
				e.Name = it.str()
			case AttrResSummaryEntryCurr:
				e.Count = it.u64()
			}
			has.Add(it.typ)
		}
		if it.err != nil {
			return fmt.Errorf("summary entry %d: %w", i, it.err)
		}
		if !has.Has(AttrResSummaryEntryName) || !has.Has(AttrResSummaryEntryCurr) {
			return fmt.Errorf("summary entry %d lacks its name or count", i)
		}
		s.Counts = append(s.Counts, e)
		return nil
	})
	return s, err
}
