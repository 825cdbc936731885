package inspect

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/rdma"
)

// TestResourceKindsAreRdmas: inspect's one list of kinds is rdma's, in
// its order, and a kind nldev does not dump is refused by name.
func TestResourceKindsAreRdmas(t *testing.T) {
	var got []rdma.Kind
	for _, rk := range resourceKinds {
		got = append(got, rk.kind)
	}
	if diff := cmp.Diff(rdma.ResourceKinds(), got); diff != "" {
		t.Errorf("resourceKinds differ from rdma.ResourceKinds (-rdma +inspect):\n%s", diff)
	}
	var c *Conn
	err := c.DumpRows(rdma.KindAH, Query{}, false, func(Row) {}, nil)
	if err == nil || !strings.Contains(err.Error(), `"ah" is not a kind`) {
		t.Errorf("DumpRows(ah): %v", err)
	}
}

// TestCompactLastOnceEach: a dump that repeats the object one reply
// ended on keeps it once, as read last; the GSI QPs of two ports (both
// number 1) stay two.
func TestCompactLastOnceEach(t *testing.T) {
	qp := func(port, n uint32, st rdma.QPState) QP {
		return QP{Object: Object{DevName: "rxe0"}, Port: port, LQPN: n, State: st}
	}
	dump := []QP{qp(1, 17, rdma.QPStateInit), qp(1, 18, rdma.QPStateInit), qp(1, 18, rdma.QPStateRTR), qp(1, 1, rdma.QPStateRTS), qp(2, 1, rdma.QPStateRTS)}
	want := []QP{dump[0], dump[2], dump[3], dump[4]}
	same := func(a, b *QP) bool { return a.LQPN == b.LQPN && qpKind.port(a) == qpKind.port(b) }
	if d := cmp.Diff(want, compactLast(dump, same)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// TestSnapshotAppendShareReserve: a Snapshot put together object by
// object, as a recording's reader does, holds each object under its
// kind; a shared kind is the other Snapshot's very slice; a reserved
// one starts empty with its room, nil for none.
func TestSnapshotAppendShareReserve(t *testing.T) {
	objs := []Rowed{&QP{LQPN: 17}, &CQ{CQN: 3}, &MR{MRN: 4}, &PD{PDN: 5}, &Context{CtxN: 6}, &SRQ{SRQN: 7}, &CMID{CMIDN: 8}, &QP{LQPN: 18}}
	var s Snapshot
	for _, x := range objs {
		if !s.Append(x) {
			t.Errorf("Append(%T) refused", x)
		}
	}
	var got []string
	s.Each(func(k Kind, _ *Object, id uint32) { got = append(got, string(k)+" "+strconv.Itoa(int(id))) })
	want := []string{"qp 17", "qp 18", "cq 3", "mr 4", "pd 5", "ctx 6", "srq 7", "cm_id 8"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("objects by kind (-want +got):\n%s", d)
	}
	if (&s).Append(nil) {
		t.Error("Append(nil) took it")
	}

	var next Snapshot
	next.Reuse(rdma.KindQP, &s)
	next.Reserve(rdma.KindCQ, 4)
	next.Reserve(rdma.KindMR, 0)
	next.Reserve(rdma.KindAH, 9) // not a kind a Snapshot holds: nothing
	if len(next.QPs) != 2 || &next.QPs[0] != &s.QPs[0] {
		t.Error("Reuse copied the QPs instead of sharing them")
	}
	if len(next.CQs) != 0 || cap(next.CQs) != 4 || next.MRs != nil || next.PDs != nil {
		t.Errorf("Reserve: %d CQs room for %d, MRs %v, PDs %v", len(next.CQs), cap(next.CQs), next.MRs, next.PDs)
	}
}
