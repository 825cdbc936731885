package view

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Modify is a modify of a QP that verbscope trace saw
// (ib_modify_qp_with_udata, drivers/infiniband/core/verbs.c) in the
// words every front end prints it with: trace's strace-like line, the
// lines of res qp --follow, the dashboard's QP history, and the JSON of
// --follow -j and the exporter's /api/v1/qps. inspect.Modify.View makes
// one of the Tracker's modifies; the formatting lives here, once.
type Modify struct {
	// PID and Comm are the process that made the modify.
	PID  int
	Comm string
	// From is the QP's state before, "" when trace did not know it; To
	// the state asked for, "" for a modify without IB_QP_STATE.
	From, To string
	// Mask are the IB_QP_* names of the mask; Attrs the values it set,
	// AttrsJSON the same as one JSON object (verbscope trace -j's
	// "attrs").
	Mask      []string
	Attrs     []ModifyAttr
	AttrsJSON []byte
	// Ret is 0 or -errno, Errno its name (EINVAL), Check what rdma.Check
	// found wrong with a failed modify.
	Ret   int
	Errno string
	Check string
}

// ModifyAttr is one attribute a modify set: its member of struct
// ib_qp_attr (include/rdma/ib_verbs.h), the address vector's members
// as "ah_attr.dgid", and the value as verbscope trace prints it.
type ModifyAttr struct {
	Name, Value string
}

// Process names a process as every front end does: "ibv_rc_pingpong[812]",
// the command Printable, for a comm is any 15 bytes the process chose.
func Process(comm string, pid int) string {
	return Printable(comm) + "[" + strconv.Itoa(pid) + "]"
}

// Process names who made the modify: "ibv_rc_pingpong[812]".
func (m *Modify) Process() string { return Process(m.Comm, m.PID) }

// Transition is the change the modify asked for: "INIT→RTR"; "→RTR"
// when the state before is unknown; "INIT (no state change)", or "(no
// state change)", for a modify that only set attributes.
func (m *Modify) Transition() string {
	if m.To == "" {
		if m.From == "" {
			return "(no state change)"
		}
		return m.From + " (no state change)"
	}
	return m.From + "→" + m.To
}

// SetText is what the modify set besides the state:
// "path_mtu=1024 dest_qp_num=18"; empty when nothing else.
func (m *Modify) SetText() string {
	var s strings.Builder
	for _, a := range m.Attrs {
		if a.Name == "qp_state" {
			continue // the transition says it
		}
		if s.Len() > 0 {
			s.WriteByte(' ')
		}
		s.WriteString(a.Name + "=" + a.Value)
	}
	return s.String()
}

// AppendJSON appends the modify as one JSON object: pid, comm, mask,
// attrs (AttrsJSON), ret, and errno and check when it failed. Without
// values it leaves out attrs and check (which quotes them: a qkey, a
// DGID): who made the modify, what its mask named and how it ended stay,
// for a client of the exporter that did not authenticate.
func (m *Modify) AppendJSON(b []byte, values bool) []byte {
	mask := m.Mask
	if mask == nil {
		mask = []string{} // [], as for a mask of no names
	}
	attrs := json.RawMessage(m.AttrsJSON)
	if len(attrs) == 0 {
		attrs = json.RawMessage("{}")
	}
	failed := m.Ret < 0
	return Row{
		{Key: "pid", Value: int64(m.PID)},
		{Key: "comm", Value: m.Comm},
		{Key: "mask", Value: mask},
		{Key: "attrs", Value: attrs, NoJSON: !values},
		{Key: "ret", Value: int64(m.Ret)},
		{Key: "errno", Value: m.Errno, NoJSON: !failed},
		{Key: "check", Value: m.Check, NoJSON: !failed || !values || m.Check == ""},
	}.AppendJSON(b)
}
