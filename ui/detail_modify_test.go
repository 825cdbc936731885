package ui

import (
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
