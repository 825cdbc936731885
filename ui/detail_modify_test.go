package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

func TestModifyLines(t *testing.T) {
	th := mustLoad(t, "dark", true)
	ok := &inspect.Modify{Comm: "ibv_rc_pingpong", PID: 812, HasState: true, To: rdma.QPStateRTS,
		Attrs: []inspect.ModifyAttr{{Name: "qp_state", Value: "RTS"}, {Name: "timeout", Value: "14"}, {Name: "retry_cnt", Value: "7"}}}
	failed := &inspect.Modify{Comm: "ibv_rc_pingpong", PID: 812, HasState: true, To: rdma.QPStateRTR, Ret: -22, Errno: "EINVAL",
		Check: "the address vector has no GRH", Attrs: []inspect.ModifyAttr{{Name: "qp_state", Value: "RTR"}, {Name: "ah_attr.is_global", Value: "0"}}}
	for _, tc := range []struct {
		md   *inspect.Modify
		want []string
	}{
		{ok, []string{"    ibv_rc_pingpong[812] modify → RTS", "      timeout=14 retry_cnt=7"}},
		{failed, []string{"    ibv_rc_pingpong[812] modify → RTR failed: EINVAL", "      why: the address vector has no GRH", "      ah_attr.is_global=0"}},
	} {
		var got []string
		for _, l := range modifyLines(th, tc.md) {
			got = append(got, ansi.Strip(l))
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	}
}

// A long detail line wraps at the width, under its own indent or its
// value, instead of ending in "…"; nothing of it is lost.
func TestWrapDetail(t *testing.T) {
	attrs := "      qp_state=RTR path_mtu=1024 dest_qp_num=17 rq_psn=0x123456 max_dest_rd_atomic=1 min_rnr_timer=12 ah_attr.grh.dgid=fe80::5054:ff:fe12:3456"
	labelled := "state        RTS  type RC  link rxe0/1  a long enough tail that goes past the edge"
	for _, tc := range []struct {
		line   string
		w      int
		indent string
	}{
		{attrs, 60, "      "},
		{labelled, 40, strings.Repeat(" ", detailIndent)},
		{attrs, 200, ""},
	} {
		got := wrapDetail(tc.line, tc.w)
		if ansi.StringWidth(tc.line) <= tc.w {
			if len(got) != 1 || got[0] != tc.line {
				t.Errorf("a line that fits was changed: %q", got)
			}
			continue
		}
		if len(got) < 2 {
			t.Errorf("%d cells at %d: not wrapped: %q", ansi.StringWidth(tc.line), tc.w, got)
		}
		for i, l := range got {
			if ansi.StringWidth(l) > tc.w {
				t.Errorf("line %d is %d cells, over %d: %q", i, ansi.StringWidth(l), tc.w, l)
			}
			if i > 0 && !strings.HasPrefix(l, tc.indent) {
				t.Errorf("line %d is not indented by %d: %q", i, len(tc.indent), l)
			}
		}
		if a, b := strings.Fields(strings.Join(got, " ")), strings.Fields(tc.line); strings.Join(a, "") != strings.Join(b, "") {
			t.Errorf("wrapping lost or changed text:\n got %q\nwant %q", a, b)
		}
	}
}
