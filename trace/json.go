package trace

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/verbscope/verbscope/rdma"
)

// orderedObject marshals as a JSON object whose keys keep their order, so
// -j reads in the order of the kernel's structs.
type orderedObject []kv

// MarshalJSON writes the pairs in order.
func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(p.Key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(p.Value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// maskNames are the mask's bits as the kernel names them (IB_QP_STATE,
// include/rdma/ib_verbs.h enum ib_qp_attr_mask); the bits are shared with
// ibv_qp_attr_mask.
func maskNames(m rdma.QPAttrMask) []string {
	names := m.Names()
	for i, n := range names {
		if !strings.HasPrefix(n, "0x") {
			names[i] = "IB_QP_" + n
		}
	}
	if names == nil {
		names = []string{}
	}
	return names
}

// MarshalJSON is one line of `verbscope trace -j`: time, pid, tid, comm,
// dev, verb, qpn (QP verbs), ret, errno (failures), then what the verb
// carries: for modify_qp the mask (IB_QP_* names) and attrs keyed by
// struct ib_qp_attr's member names, only those the mask set.
func (e Event) MarshalJSON() ([]byte, error) {
	o := orderedObject{
		{"time", e.Time.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")},
		{"pid", e.PID}, {"tid", e.TID}, {"comm", e.Comm}, {"dev", e.Dev},
		{"verb", string(e.Verb)},
	}
	if e.HasQPN {
		o = append(o, kv{"qpn", e.QPN}, kv{"qp_type", e.QPType.String()})
	}
	o = append(o, kv{"ret", e.Ret})
	if e.Ret < 0 {
		o = append(o, kv{"errno", errnoName(e.Errno)}, kv{"stage", string(e.Stage)})
	}
	if e.Handler != "" {
		o = append(o, kv{"handler", e.Handler})
	}
	if e.Stage == StageUVerbs {
		return o.MarshalJSON() // the handler refused it: nothing more is known
	}
	switch e.Verb {
	case VerbModifyQP:
		if e.FromKnown {
			o = append(o, kv{"from", e.From.String()})
		}
		o = append(o, kv{"mask", maskNames(e.Mask)}, kv{"attrs", e.attrs()})
		var sgid any // null until the QP has an address vector
		if !e.SGID.IsZero() {
			sgid = e.SGID.String()
		}
		o = append(o, kv{"sgid", sgid})
		if e.rewroteHopLimit() {
			o = append(o, kv{"route_hop_limit", e.RouteHopLimit})
		}
		if e.Check != nil {
			o = append(o, kv{"check", checkJSON(e.Check)})
		}
	case VerbCreateQP:
		o = append(o, kv{"cap", capJSON(e.Cap)})
	case VerbAsyncEvent:
		o = append(o, kv{"event", e.AsyncEvent.String()})
	case VerbRegMR, VerbDeregMR:
		o = append(o, kv{"mrn", e.ObjID}, kv{"mrlen", e.Length}, kv{"iova", e.IOVA}, kv{"lkey", e.LKey}, kv{"rkey", e.RKey})
		if e.HasAccess {
			o = append(o, kv{"access", uint64(e.Access)})
		}
	case VerbCreateCQ, VerbDestroyCQ:
		o = append(o, kv{"cqn", e.ObjID}, kv{"cqe", e.Length})
	default:
		if k := objKey(e.Verb); k != "" {
			o = append(o, kv{k, e.ObjID})
		}
	}
	return o.MarshalJSON()
}

// objKey names an object's id as rdma resource show does (pdn, srqn, ...).
func objKey(v Verb) string {
	switch v {
	case VerbAllocPD, VerbDeallocPD:
		return "pdn"
	case VerbCreateSRQ, VerbDestroySRQ:
		return "srqn"
	case VerbAllocContext, VerbFreeContext:
		return "ctxn"
	case VerbCreateCMID, VerbDestroyCMID:
		return "cm-idn"
	}
	return ""
}

// checkJSON is rdma.Check's verdict on a failed modify: the errno it
// predicts, the rule that decides, and the whole explanation.
func checkJSON(v *rdma.Verdict) orderedObject {
	o := orderedObject{{"errno", errnoName(v.Errno)}}
	if d := v.Decisive(); d != nil {
		o = append(o, kv{"rule", d.Rule}, kv{"problem", d.Problem}, kv{"fix", d.Fix})
	}
	return append(o, kv{"explain", v.Explain()})
}
