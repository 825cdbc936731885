package inspect

import (
	"strconv"

	"github.com/verbscope/verbscope/view"
)

// JSON without rows. Building a QP's Row costs small allocations (each
// number's text, each value boxed for JSON), and in the lab's emulated
// guest rows and their JSON were most of the CPU `res qp -j` spent
// outside the kernel at 10,000 QPs (BenchmarkQPJSON10k,
// BenchmarkResProcess: docs/performance.md). What has no filter to match
// and no driver attributes to print can write its JSON straight from the
// object; the tests hold it to the Row's JSON (TestQPAppendJSON,
// FuzzQPAppendJSON).

// AppendJSON appends the QP as q.Row(false).AppendJSON writes it: the
// keys and values of `rdma -j resource show qp`, without the driver's.
func (q *QP) AppendJSON(b []byte) []byte {
	a := &q.Attrs
	b = appendLinkJSON(b, &q.Object, q.Port, a.Has(AttrPortIndex))
	b = appendUintJSON(b, "lqpn", q.LQPN)
	if a.Has(AttrResRQPN) {
		b = appendUintJSON(b, "rqpn", q.RQPN)
	}
	b = appendStringJSON(b, "type", q.Type.IPRoute2())
	if a.Has(AttrResSubtype) {
		b = appendStringJSON(b, "subtype", q.Subtype)
	}
	b = appendStringJSON(b, "state", q.State.IPRoute2())
	if a.Has(AttrResRQPSN) {
		b = appendUintJSON(b, "rq-psn", q.RQPSN)
	}
	b = appendUintJSON(b, "sq-psn", q.SQPSN)
	if a.Has(AttrResPathMigState) {
		b = appendStringJSON(b, "path-mig-state", q.PathMigState.IPRoute2())
	}
	if a.Has(AttrResPDN) {
		b = appendUintJSON(b, "pdn", q.PDN)
	}
	return append(appendOwnerJSON(b, &q.Object), '}')
}

// appendLinkJSON opens the object and writes linkFields' JSON: ifindex,
// ifname and, when sent, port.
func appendLinkJSON(b []byte, o *Object, port uint32, hasPort bool) []byte {
	b = append(b, `{"ifindex":`...)
	b = strconv.AppendUint(b, uint64(o.DevIndex), 10)
	b = appendStringJSON(b, "ifname", o.DevName)
	if hasPort {
		b = appendUintJSON(b, "port", port)
	}
	return b
}

// appendOwnerJSON writes ownerFields' JSON without driver attributes.
func appendOwnerJSON(b []byte, o *Object) []byte {
	if o.HasPID() {
		b = appendUintJSON(b, "pid", o.PID)
		if o.TGID != 0 {
			b = appendUintJSON(b, "tgid", o.TGID)
		}
	}
	if o.Comm != "" {
		b = appendStringJSON(b, "comm", o.Comm)
	}
	return b
}

// appendUintJSON writes `,"key":N`; every key here is plain ASCII, as
// view.AppendJSONString would write it.
func appendUintJSON(b []byte, key string, v uint32) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendUint(b, uint64(v), 10)
}

// appendStringJSON writes `,"key":"VALUE"`, the value escaped as
// view.AppendJSONString escapes it.
func appendStringJSON(b []byte, key, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return view.AppendJSONString(b, v)
}
