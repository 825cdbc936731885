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
