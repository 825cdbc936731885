package inspect

import (
	"context"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// resumedQPDump is what res_get_common_dumpit
// (drivers/infiniband/core/nldev.c) sends for a QP dump that takes two
// replies while the table changes between them: each reply walks the
// restrack table (ordered by restrack id, qpResID) from its start and
// skips as many entries as the replies before it held (cb->args[0], a
// count), so an entry that enters the table below that count moves the
// next reply's start back onto entries already sent; perReply entries
// fit in a reply. between changes the table after the first.
func resumedQPDump(table []QP, perReply int, between func([]QP) []QP) [][]byte {
	msg := func(qps []QP) []byte {
		var tab []byte
		for _, q := range qps {
			e := attr(AttrResLQPN, u32b(q.LQPN))
			if q.Port != 0 { // a QP in RESET has no port yet (fill_res_qp_entry)
				e = cat(attr(AttrPortIndex, u32b(q.Port)), e)
			}
			e = cat(e, attr(AttrResSQPSN, u32b(0)), attr(AttrResType, []byte{2}), attr(AttrResState, []byte{byte(q.State)}), attr(AttrResPID, u32b(1)))
			tab = append(tab, attr(AttrResQPEntry, e)...)
		}
		return cat(attr(AttrDevIndex, u32b(0)), attr(AttrDevName, []byte("rxe0\x00")), attr(AttrResQP, tab))
	}
	byID := func(qps []QP) []QP {
		return slices.SortedFunc(slices.Values(qps), func(a, b QP) int {
			return int(qpResID(a.Port, a.LQPN)) - int(qpResID(b.Port, b.LQPN))
		})
	}
	table = byID(table)
	first := msg(table[:perReply])
	table = byID(between(table))
	rest := table[perReply:] // resumed by count
	return [][]byte{first, msg(rest)}
}

// TestDumpResumedByCountHoldsEachQPOnce: a QP dump that takes two
// replies while the table changes between them holds each QP once, as
// last read.
func TestDumpResumedByCountHoldsEachQPOnce(t *testing.T) {
	qp := func(port, n uint32, st QPState) QP { return QP{Port: port, LQPN: n, State: st} }
	gsi := qp(1, 1, 3) // restrack id 1|1<<24: the top of the table
	for _, tc := range []struct {
		name     string
		table    []QP
		perReply int
		between  func([]QP) []QP
		want     []string
	}{{
		// Seen in the lab (a helper creating 1,000 QPs while a reader
		// dumped): the first reply walked the whole table, GSI QP
		// last; two QPs created before the next are filed below the
		// GSI QP and push it past the count, so the next reply sends
		// the second of them and the GSI QP again. The first of them
		// waits for the next dump.
		name:     "QPs created between the replies",
		table:    []QP{qp(1, 17, 2), qp(1, 20, 2), gsi},
		perReply: 3,
		between: func(t []QP) []QP {
			return append(t, qp(1, 21, 2), qp(1, 22, 2))
		},
		want: []string{"17/p1/2", "20/p1/2", "22/p1/2", "1/p1/3"},
	}, {
		// Two QPs filed below the count (two threads creating QPs:
		// the driver numbers a QP as it creates it, restrack files it
		// after), while the last two the first reply sent moved from
		// RESET (no port) to INIT: the next reply resends those two,
		// on port 1.
		name:     "QPs filed below the count, two QPs moved",
		table:    []QP{qp(1, 17, 2), qp(1, 20, 2), qp(0, 21, 0), qp(0, 22, 0), gsi},
		perReply: 4,
		between: func(t []QP) []QP {
			for i := range t {
				if t[i].LQPN >= 21 {
					t[i].Port, t[i].State = 1, 2
				}
			}
			return append(t, qp(1, 18, 2), qp(1, 19, 2))
		},
		want: []string{"17/p1/2", "20/p1/2", "21/p1/2", "22/p1/2", "1/p1/3"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := resumedQPDump(tc.table, tc.perReply, tc.between)
			c := NewConn(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
				if len(reqs) == 0 {
					return nil, io.EOF
				}
				return fakeKernel(t, map[Command][][]byte{CmdGet: {idleDevice(t)}, CmdResQPGet: msgs})(reqs)
			}))
			defer c.Close()
			s, err := c.Snapshot(context.Background(), SnapshotOptions{NoCounters: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, q := range s.QPs {
				got = append(got, fmt.Sprintf("%d/p%d/%d", q.LQPN, q.Port, q.State))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("QPs %v, want each once as last read: %v", got, tc.want)
			}
		})
	}
}
