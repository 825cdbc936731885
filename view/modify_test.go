package view

import (
	"encoding/json"
	"testing"
)

func TestModifyText(t *testing.T) {
	m := &Modify{PID: 812, Comm: "rc\x1bping", Attrs: []ModifyAttr{{"qp_state", "RTR"}, {"path_mtu", "1024"}, {"dest_qp_num", "18"}}}
	if got, want := m.SetText(), "path_mtu=1024 dest_qp_num=18"; got != want {
		t.Errorf("SetText: %q, want %q", got, want)
	}
	if got := (&Modify{Attrs: []ModifyAttr{{"qp_state", "RTR"}}}).SetText(); got != "" {
		t.Errorf("SetText of a state alone: %q, want nothing", got)
	}
	if got, want := m.Process(), "rc\\x1bping[812]"; got != want {
		t.Errorf("Process: %q, want %q", got, want)
	}
}

func TestModifyTransition(t *testing.T) {
	for _, tc := range []struct {
		from, to, want string
	}{
		{"INIT", "RTR", "INIT→RTR"},
		{"", "RTR", "→RTR"}, // trace did not know the state before
		{"RTS", "", "RTS (no state change)"},
		{"", "", "(no state change)"},
	} {
		m := &Modify{From: tc.from, To: tc.to}
		if got := m.Transition(); got != tc.want {
			t.Errorf("from %q to %q: %q, want %q", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestModifyJSON: with values a modify carries its attributes and
// rdma.Check's finding; without, neither, and the rest stays.
func TestModifyJSON(t *testing.T) {
	m := &Modify{PID: 9, Comm: "app", Mask: []string{"IB_QP_STATE", "IB_QP_QKEY"}, AttrsJSON: []byte(`{"qp_state":"RTR","qkey":291}`),
		Ret: -22, Errno: "EINVAL", Check: "qkey 0x123 is ..."}
	for _, tc := range []struct {
		m      *Modify
		values bool
		want   string
	}{
		{m, true, `{"pid":9,"comm":"app","mask":["IB_QP_STATE","IB_QP_QKEY"],"attrs":{"qp_state":"RTR","qkey":291},"ret":-22,"errno":"EINVAL","check":"qkey 0x123 is ..."}`},
		{m, false, `{"pid":9,"comm":"app","mask":["IB_QP_STATE","IB_QP_QKEY"],"ret":-22,"errno":"EINVAL"}`},
		// One that worked has no errno; one without a mask or attributes
		// still has both, empty; a comm is its exact bytes, made valid.
		{&Modify{PID: 1, Comm: "a<b\xff"}, true, `{"pid":1,"comm":"a<b\ufffd","mask":[],"attrs":{},"ret":0}`},
	} {
		got := tc.m.AppendJSON(nil, tc.values)
		if string(got) != tc.want {
			t.Errorf("values %v:\n got %s\nwant %s", tc.values, got, tc.want)
		}
		if !json.Valid(got) {
			t.Errorf("not valid JSON: %s", got)
		}
	}
}
