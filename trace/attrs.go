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

func named[T fmt.Stringer](get func(a *rdma.QPAttr) T) (func(*rdma.QPAttr) any, func(*rdma.QPAttr) string) {
	return func(a *rdma.QPAttr) any { return get(a).String() },
		func(a *rdma.QPAttr) string { return get(a).String() }
}

// member is an integer member of struct ib_qp_attr by its kernel name,
// whose mask bit and value rdma's field table gives (rdma.UintField: the
// shell's table, which knows the kernel's spellings); hex prints it as
// 0x... in the text line (JSON has numbers).
type member struct {
	key string
	hex bool
}

// attrOrder lists the attributes in ib_qp_attr_mask order: a member of
// rdma's table, or a field trace shows its own way (states and the MTU
// by name, the AV and cap as objects). ALT_PATH sets three of them (the
// alternate AV is not read).
var attrOrder = []any{
	special{rdma.AttrState, "qp_state"}, special{rdma.AttrCurState, "cur_qp_state"},
	special{rdma.AttrEnSQDAsyncNotify, "en_sqd_async_notify"}, special{rdma.AttrAccessFlags, "qp_access_flags"},
	member{"pkey_index", false}, member{"port_num", false}, member{"qkey", true},
	special{rdma.AttrAV, "ah_attr"}, special{rdma.AttrPathMTU, "path_mtu"},
	member{"timeout", false}, member{"retry_cnt", false}, member{"rnr_retry", false},
	member{"rq_psn", true}, member{"max_rd_atomic", false},
	member{"alt_pkey_index", false}, member{"alt_port_num", false}, member{"alt_timeout", false},
	member{"min_rnr_timer", false}, member{"sq_psn", true}, member{"max_dest_rd_atomic", false},
	special{rdma.AttrPathMigState, "path_mig_state"}, special{rdma.AttrCap, "cap"},
	member{"dest_qp_num", false}, member{"rate_limit", false},
}

// special is a field trace renders itself, by its mask bit and kernel name.
type special struct {
	bit rdma.QPAttrMask
	key string
}

// specials are the JSON and text renderings of the special fields.
var specials = func() map[string]attrField {
	m := map[string]attrField{}
	j, t := named(func(a *rdma.QPAttr) rdma.QPState { return a.State })
	m["qp_state"] = attrField{json: j, text: t}
	j, t = named(func(a *rdma.QPAttr) rdma.QPState { return a.CurState })
	m["cur_qp_state"] = attrField{json: j, text: t}
	m["en_sqd_async_notify"] = attrField{
		json: func(a *rdma.QPAttr) any { return a.EnSQDAsyncNotify },
		text: func(a *rdma.QPAttr) string { return fmt.Sprint(a.EnSQDAsyncNotify) }}
	m["qp_access_flags"] = attrField{
		json: func(a *rdma.QPAttr) any { return uint64(a.AccessFlags) },
		text: func(a *rdma.QPAttr) string { return a.AccessFlags.String() }}
	m["ah_attr"] = attrField{json: func(a *rdma.QPAttr) any { return ahJSON(&a.AH) }, text: func(a *rdma.QPAttr) string { return ahText(&a.AH) }}
	m["path_mtu"] = attrField{
		json: func(a *rdma.QPAttr) any { return a.PathMTU.Bytes() },
		text: func(a *rdma.QPAttr) string { return a.PathMTU.String() }}
	j, t = named(func(a *rdma.QPAttr) rdma.MigState { return a.PathMigState })
	m["path_mig_state"] = attrField{json: j, text: t}
	m["cap"] = attrField{json: func(a *rdma.QPAttr) any { return capJSON(a.Cap) }, text: func(a *rdma.QPAttr) string { return capText(a.Cap) }}
	return m
}()

// attrFields is attrOrder made into fields; a member rdma does not know
// is left out (TestAttrFields fails then).
var attrFields = func() []attrField {
	var fs []attrField
	for _, o := range attrOrder {
		switch o := o.(type) {
		case special:
			f := specials[o.key]
			f.bit, f.key = o.bit, o.key
			fs = append(fs, f)
		case member:
			bit, get, ok := rdma.UintField(o.key)
			if !ok {
				continue
			}
			format := "%d"
			if o.hex {
				format = "%#x"
			}
			fs = append(fs, attrField{bit: bit, key: o.key,
				json: func(a *rdma.QPAttr) any { return get(a) },
				text: func(a *rdma.QPAttr) string { return fmt.Sprintf(format, get(a)) }})
		}
	}
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
