package trace

import (
	"testing"

	"github.com/verbscope/verbscope/rdma"
)

// TestAttrFields: every member of attrOrder resolves (rdma.UintField
// knows its name), each has a rendering, and their bits come in
// ib_qp_attr_mask order, one field per bit but ALT_PATH's three.
func TestAttrFields(t *testing.T) {
	if len(attrFields) != len(attrOrder) {
		t.Errorf("%d fields of %d in attrOrder: rdma.UintField lacks a member's name", len(attrFields), len(attrOrder))
	}
	seen := map[rdma.QPAttrMask]int{}
	var last rdma.QPAttrMask
	for _, f := range attrFields {
		if f.bit == 0 || f.json == nil || f.text == nil {
			t.Errorf("%s: bit %#x, json %v, text %v", f.key, uint64(f.bit), f.json != nil, f.text != nil)
		}
		if f.bit < last {
			t.Errorf("%s (%v) comes after %v: not in mask order", f.key, f.bit, last)
		}
		last = f.bit
		seen[f.bit]++
	}
	for bit, n := range seen {
		if want := map[bool]int{true: 3, false: 1}[bit == rdma.AttrAltPath]; n != want {
			t.Errorf("%d fields for %v, want %d", n, bit, want)
		}
	}
}
