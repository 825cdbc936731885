package inspect

import (
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
