package trace

import (
	"fmt"

	"github.com/verbscope/verbscope/rdma"
)

// kv is one key and value of a JSON object whose keys keep their order.
type kv struct {
	Key   string
	Value any
}

// attrField is one member of struct ib_qp_attr (include/rdma/ib_verbs.h)
// under the ib_qp_attr_mask bit that sets it: its own name as the key, its
// value for JSON and for the text line.
type attrField struct {
	bit  rdma.QPAttrMask
	key  string
	json func(a *rdma.QPAttr) any
	text func(a *rdma.QPAttr) string
}

func num[T ~uint8 | ~uint16 | ~uint32](get func(a *rdma.QPAttr) T) (func(*rdma.QPAttr) any, func(*rdma.QPAttr) string) {
	return func(a *rdma.QPAttr) any { return uint64(get(a)) },
		func(a *rdma.QPAttr) string { return fmt.Sprint(uint64(get(a))) }
}

func hexNum[T ~uint32](get func(a *rdma.QPAttr) T) (func(*rdma.QPAttr) any, func(*rdma.QPAttr) string) {
	return func(a *rdma.QPAttr) any { return uint64(get(a)) },
		func(a *rdma.QPAttr) string { return fmt.Sprintf("%#x", uint64(get(a))) }
}

func named[T fmt.Stringer](get func(a *rdma.QPAttr) T) (func(*rdma.QPAttr) any, func(*rdma.QPAttr) string) {
	return func(a *rdma.QPAttr) any { return get(a).String() },
		func(a *rdma.QPAttr) string { return get(a).String() }
}

// attrFields lists the attributes in ib_qp_attr_mask order; ALT_PATH sets
// three of them (the alternate AV is not read).
var attrFields = func() []attrField {
	var fs []attrField
	add := func(bit rdma.QPAttrMask, key string, j func(*rdma.QPAttr) any, t func(*rdma.QPAttr) string) {
		fs = append(fs, attrField{bit: bit, key: key, json: j, text: t})
	}
	j, t := named(func(a *rdma.QPAttr) rdma.QPState { return a.State })
	add(rdma.AttrState, "qp_state", j, t)
	j, t = named(func(a *rdma.QPAttr) rdma.QPState { return a.CurState })
	add(rdma.AttrCurState, "cur_qp_state", j, t)
	add(rdma.AttrEnSQDAsyncNotify, "en_sqd_async_notify",
		func(a *rdma.QPAttr) any { return a.EnSQDAsyncNotify },
		func(a *rdma.QPAttr) string { return fmt.Sprint(a.EnSQDAsyncNotify) })
	add(rdma.AttrAccessFlags, "qp_access_flags",
		func(a *rdma.QPAttr) any { return uint64(a.AccessFlags) },
		func(a *rdma.QPAttr) string { return a.AccessFlags.String() })
	j, t = num(func(a *rdma.QPAttr) uint16 { return a.PKeyIndex })
	add(rdma.AttrPKeyIndex, "pkey_index", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.Port })
	add(rdma.AttrPort, "port_num", j, t)
	j, t = hexNum(func(a *rdma.QPAttr) uint32 { return a.QKey })
	add(rdma.AttrQKey, "qkey", j, t)
	add(rdma.AttrAV, "ah_attr", func(a *rdma.QPAttr) any { return ahJSON(&a.AH) }, func(a *rdma.QPAttr) string { return ahText(&a.AH) })
	add(rdma.AttrPathMTU, "path_mtu",
		func(a *rdma.QPAttr) any { return a.PathMTU.Bytes() },
		func(a *rdma.QPAttr) string { return a.PathMTU.String() })
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.Timeout })
	add(rdma.AttrTimeout, "timeout", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.RetryCnt })
	add(rdma.AttrRetryCnt, "retry_cnt", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.RNRRetry })
	add(rdma.AttrRNRRetry, "rnr_retry", j, t)
	j, t = hexNum(func(a *rdma.QPAttr) uint32 { return a.RQPSN })
	add(rdma.AttrRQPSN, "rq_psn", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.MaxRdAtomic })
	add(rdma.AttrMaxQPRdAtomic, "max_rd_atomic", j, t)
	j, t = num(func(a *rdma.QPAttr) uint16 { return a.AltPKeyIndex })
	add(rdma.AttrAltPath, "alt_pkey_index", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.AltPort })
	add(rdma.AttrAltPath, "alt_port_num", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.AltTimeout })
	add(rdma.AttrAltPath, "alt_timeout", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.MinRNRTimer })
	add(rdma.AttrMinRNRTimer, "min_rnr_timer", j, t)
	j, t = hexNum(func(a *rdma.QPAttr) uint32 { return a.SQPSN })
	add(rdma.AttrSQPSN, "sq_psn", j, t)
	j, t = num(func(a *rdma.QPAttr) uint8 { return a.MaxDestRdAtomic })
	add(rdma.AttrMaxDestRdAtomic, "max_dest_rd_atomic", j, t)
	j, t = named(func(a *rdma.QPAttr) rdma.MigState { return a.PathMigState })
	add(rdma.AttrPathMigState, "path_mig_state", j, t)
	add(rdma.AttrCap, "cap", func(a *rdma.QPAttr) any { return capJSON(a.Cap) }, func(a *rdma.QPAttr) string { return capText(a.Cap) })
	j, t = num(func(a *rdma.QPAttr) uint32 { return a.DestQPN })
	add(rdma.AttrDestQPN, "dest_qp_num", j, t)
	j, t = num(func(a *rdma.QPAttr) uint32 { return a.RateLimit })
	add(rdma.AttrRateLimit, "rate_limit", j, t)
	return fs
}()

// ahJSON is struct rdma_ah_attr with its GRH flattened, keyed as the
// kernel names the members.
func ahJSON(ah *rdma.AHAttr) orderedObject {
	return orderedObject{
		{"dgid", ah.GRH.DGID.String()},
		{"sgid_index", ah.GRH.SGIDIndex},
		{"hop_limit", ah.GRH.HopLimit},
		{"traffic_class", ah.GRH.TrafficClass},
		{"flow_label", ah.GRH.FlowLabel},
		{"sl", ah.SL},
		{"dlid", ah.DLID},
		{"static_rate", ah.StaticRate},
		{"port_num", ah.PortNum},
		{"is_global", ah.IsGlobal},
	}
}

func ahText(ah *rdma.AHAttr) string {
	if !ah.IsGlobal {
		return fmt.Sprintf("dlid=%d sl=%d port_num=%d is_global=0", ah.DLID, ah.SL, ah.PortNum)
	}
	return fmt.Sprintf("dgid=%s sgid_index=%d hop_limit=%d traffic_class=%d sl=%d port_num=%d",
		ah.GRH.DGID, ah.GRH.SGIDIndex, ah.GRH.HopLimit, ah.GRH.TrafficClass, ah.SL, ah.PortNum)
}

func capJSON(c rdma.QPCap) orderedObject {
	return orderedObject{
		{"max_send_wr", c.MaxSendWR}, {"max_recv_wr", c.MaxRecvWR},
		{"max_send_sge", c.MaxSendSGE}, {"max_recv_sge", c.MaxRecvSGE},
		{"max_inline_data", c.MaxInlineData},
	}
}

func capText(c rdma.QPCap) string {
	return fmt.Sprintf("max_send_wr=%d max_recv_wr=%d max_send_sge=%d max_recv_sge=%d max_inline_data=%d",
		c.MaxSendWR, c.MaxRecvWR, c.MaxSendSGE, c.MaxRecvSGE, c.MaxInlineData)
}

// attrs lists the attributes a modify set, in mask order, as (ib_qp_attr
// member name, value) pairs: what -j prints under "attrs". The AV and cap
// are nested objects.
func (e *Event) attrs() orderedObject {
	var out orderedObject
	for _, f := range attrFields {
		if e.Mask&f.bit != 0 {
			out = append(out, kv{f.key, f.json(&e.Attr)})
		}
	}
	return out
}

// attrText is the text line's "key=value ..." of the attributes the mask
// set; the AV and cap print their members flat, and the target state is
// left to the line itself.
func (e *Event) attrText() []string {
	var out []string
	for _, f := range attrFields {
		if e.Mask&f.bit == 0 || f.bit == rdma.AttrState {
			continue
		}
		if f.bit == rdma.AttrAV || f.bit == rdma.AttrCap {
			out = append(out, f.text(&e.Attr))
			continue
		}
		out = append(out, f.key+"="+f.text(&e.Attr))
	}
	return out
}
