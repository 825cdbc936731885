package inspect

import (
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// Rows: objects as the lines `rdma resource show` prints (iproute2
// rdma/res-*.c, the res_*_line functions), in its field order, with the
// text it prints and the keys and values of `rdma -j resource show`, so
// scripts written against iproute2 read verbscope's JSON unchanged.

// field is one item of a line (view.Field): the rows of every front end
// share one model.
type field = view.Field

// Row is one line: one object, its fields in iproute2's order (view.Row).
type Row = view.Row

// field constructors for the print helpers of rdma/res.c.

// u32Field is res_print_u32: "key N", a JSON number.
func u32Field(key string, v uint32) field {
	return field{Key: key, Text: strconv.FormatUint(uint64(v), 10), Value: uint64(v), Num: uint64(v), IsNum: true}
}

// u64Field is res_print_u64.
func u64Field(key string, v uint64) field {
	return field{Key: key, Text: strconv.FormatUint(v, 10), Value: v, Num: v, IsNum: true}
}

// strField is print_color_string with "key %s".
func strField(key, v string) field { return field{Key: key, Text: v, Value: v} }

// keyField is print_key: text "0x%x", JSON the hex digits as a string
// ("273"), of the low 32 bits as print_color_hex takes an unsigned int.
func keyField(key string, v uint64) field {
	return field{Key: key, Text: "0x" + strconv.FormatUint(v, 16),
		Value: strconv.FormatUint(v&0xffffffff, 16), Num: v, IsNum: true}
}

// devFields is print_dev: text "dev NAME", JSON ifindex and ifname.
func devFields(r Row, o *Object) Row {
	return append(r,
		field{Key: "ifindex", Value: int64(int32(o.DevIndex)), Num: uint64(o.DevIndex), IsNum: true, NoText: true},
		field{Key: "ifname", TextKey: "dev", Text: o.DevName, Value: o.DevName})
}

// linkFields is print_link: text "link DEV/PORT" ("DEV/-" without a
// port), JSON ifindex, ifname and, when sent, port.
func linkFields(r Row, o *Object, port uint32, hasPort bool) Row {
	link := o.DevName + "/-"
	r = append(r,
		field{Key: "ifindex", Value: uint64(o.DevIndex), Num: uint64(o.DevIndex), IsNum: true, NoText: true},
		field{Key: "ifname", Value: o.DevName, NoText: true})
	if hasPort {
		link = o.DevName + "/" + strconv.FormatUint(uint64(port), 10)
		f := u32Field("port", port)
		f.NoText = true
		r = append(r, f)
	}
	return append(r, field{Key: "link", Text: link, Value: link, NoJSON: true})
}

// ownerFields are the trailing pid, comm and driver attributes of every
// line (res_print_u32 "pid", print_comm, print_driver_table), with one
// key of ours after pid: tgid, the process of the thread the kernel names
// as pid (Tgid in /proc/PID/status), so that objects group by process.
// iproute2 has no such key; it is left out when /proc did not say.
func ownerFields(r Row, o *Object, driver bool) Row {
	if o.HasPID() {
		r = append(r, u32Field("pid", o.PID))
		if o.TGID != 0 {
			r = append(r, u32Field("tgid", o.TGID))
		}
	}
	if o.Comm != "" {
		text := o.Comm
		if !o.HasPID() {
			text = "[" + o.Comm + "]"
		}
		r = append(r, field{Key: "comm", Text: text, Value: o.Comm})
	}
	if driver {
		r = driverFields(r, o.Driver)
	}
	return r
}

// driverFields is print_driver_table: "drv_KEY VALUE", hex when the
// driver asked. Like iproute2, JSON prints the numbers as a C int, so
// values beyond 32 bits wrap.
func driverFields(r Row, d []DriverAttr) Row {
	for _, a := range d {
		f := field{Key: "drv_" + a.Key}
		var n uint64
		switch v := a.Value.(type) {
		case string:
			f.Text, f.Value = v, v
			r = append(r, f)
			continue
		case int32:
			n, f.Text = uint64(v), strconv.FormatInt(int64(v), 10)
		case int64:
			n, f.Text = uint64(v), strconv.FormatInt(v, 10)
		case uint32:
			n, f.Text = uint64(v), strconv.FormatUint(uint64(v), 10)
		case uint64:
			n, f.Text = v, strconv.FormatUint(v, 10)
		}
		if a.Hex {
			f.Text = "0x" + strconv.FormatUint(truncHex(a.Value, n), 16)
		}
		f.Value, f.Num, f.IsNum = int64(int32(n)), n, true
		r = append(r, f)
	}
	return r
}

// truncHex gives the bits printf's %x shows for a driver value: 32-bit
// values as unsigned 32-bit numbers.
func truncHex(v any, n uint64) uint64 {
	switch v.(type) {
	case int32, uint32:
		return n & 0xffffffff
	}
	return n
}

// AppendRow appends to r the QP as rdma/res-qp.c res_qp_line prints it; driver adds
// the driver attributes (iproute2's -dd).
// A caller that prints many objects reuses one r (r[:0]).
func (q *QP) AppendRow(r Row, driver bool) Row {
	a := &q.Attrs
	r = linkFields(r, &q.Object, q.Port, a.Has(AttrPortIndex))
	r = append(r, u32Field("lqpn", q.LQPN))
	if a.Has(AttrResRQPN) {
		r = append(r, u32Field("rqpn", q.RQPN))
	}
	r = append(r, strField("type", q.Type.IPRoute2()))
	if a.Has(AttrResSubtype) {
		r = append(r, strField("subtype", q.Subtype))
	}
	r = append(r, strField("state", q.State.IPRoute2()))
	if a.Has(AttrResRQPSN) {
		r = append(r, u32Field("rq-psn", q.RQPSN))
	}
	r = append(r, u32Field("sq-psn", q.SQPSN))
	if a.Has(AttrResPathMigState) {
		r = append(r, strField("path-mig-state", q.PathMigState.IPRoute2()))
	}
	if a.Has(AttrResPDN) {
		r = append(r, u32Field("pdn", q.PDN))
	}
	return ownerFields(r, &q.Object, driver)
}

// Row returns the QP's fields in a new Row (AppendRow).
func (q *QP) Row(driver bool) Row { return q.AppendRow(make(Row, 0, 16), driver) }

// AppendRow appends to r the CQ as rdma/res-cq.c res_cq_line prints it.
// A caller that prints many objects reuses one r (r[:0]).
func (q *CQ) AppendRow(r Row, driver bool) Row {
	a := &q.Attrs
	r = devFields(r, &q.Object)
	if a.Has(AttrResCQN) {
		r = append(r, u32Field("cqn", q.CQN))
	}
	r = append(r, u32Field("cqe", q.CQE), u64Field("users", q.Users))
	if a.Has(AttrResPollCtx) {
		r = append(r, strField("poll-ctx", q.PollCtx.String()))
	}
	if a.Has(AttrDevDIM) && q.DIM <= 1 {
		on := q.DIM == 1
		text := "off"
		if on {
			text = "on"
		}
		r = append(r, field{Key: "adaptive-moderation", Text: text, Value: on})
	}
	if a.Has(AttrResCtxN) {
		r = append(r, u32Field("ctxn", q.CtxN))
	}
	return ownerFields(r, &q.Object, driver)
}

// Row returns the CQ's fields in a new Row (AppendRow).
func (q *CQ) Row(driver bool) Row { return q.AppendRow(make(Row, 0, 12), driver) }

// AppendRow appends to r the MR as rdma/res-mr.c res_mr_line prints it.
// A caller that prints many objects reuses one r (r[:0]).
func (m *MR) AppendRow(r Row, driver bool) Row {
	a := &m.Attrs
	r = devFields(r, &m.Object)
	if a.Has(AttrResMRN) {
		r = append(r, u32Field("mrn", m.MRN))
	}
	if a.Has(AttrResRKey) {
		r = append(r, keyField("rkey", uint64(m.RKey)))
	}
	if a.Has(AttrResLKey) {
		r = append(r, keyField("lkey", uint64(m.LKey)))
	}
	if a.Has(AttrResIOVA) {
		r = append(r, keyField("iova", m.IOVA))
	}
	r = append(r, u64Field("mrlen", m.Len))
	if a.Has(AttrResPDN) {
		r = append(r, u32Field("pdn", m.PDN))
	}
	return ownerFields(r, &m.Object, driver)
}

// Row returns the MR's fields in a new Row (AppendRow).
func (m *MR) Row(driver bool) Row { return m.AppendRow(make(Row, 0, 12), driver) }

// AppendRow appends to r the PD as rdma/res-pd.c res_pd_line prints it.
// A caller that prints many objects reuses one r (r[:0]).
func (p *PD) AppendRow(r Row, driver bool) Row {
	a := &p.Attrs
	r = devFields(r, &p.Object)
	if a.Has(AttrResPDN) {
		r = append(r, u32Field("pdn", p.PDN))
	}
	if a.Has(AttrResLocalDMALKey) {
		r = append(r, keyField("local_dma_lkey", uint64(p.LocalDMALKey)))
	}
	r = append(r, u64Field("users", p.Users))
	if a.Has(AttrResUnsafeGlobalRKey) {
		r = append(r, keyField("unsafe_global_rkey", uint64(p.UnsafeGlobalRKey)))
	}
	if a.Has(AttrResCtxN) {
		r = append(r, u32Field("ctxn", p.CtxN))
	}
	return ownerFields(r, &p.Object, driver)
}

// Row returns the PD's fields in a new Row (AppendRow).
func (p *PD) Row(driver bool) Row { return p.AppendRow(make(Row, 0, 12), driver) }

// AppendRow appends to r the context as rdma/res-ctx.c res_ctx_line prints it.
// A caller that prints many objects reuses one r (r[:0]).
func (x *Context) AppendRow(r Row, driver bool) Row {
	r = devFields(r, &x.Object)
	r = append(r, u32Field("ctxn", x.CtxN))
	return ownerFields(r, &x.Object, driver)
}

// Row returns the context's fields in a new Row (AppendRow).
func (x *Context) Row(driver bool) Row { return x.AppendRow(make(Row, 0, 8), driver) }

// AppendRow appends to r the SRQ as rdma/res-srq.c res_srq_line prints it: the
// attached QPs as "lqpn 17,20-22", a JSON array of strings.
// A caller that prints many objects reuses one r (r[:0]).
func (s *SRQ) AppendRow(r Row, driver bool) Row {
	a := &s.Attrs
	r = devFields(r, &s.Object)
	r = append(r, u32Field("srqn", s.SRQN), strField("type", s.Type.String()))
	if len(s.QPs) > 0 {
		list := make([]string, len(s.QPs))
		for i, q := range s.QPs {
			list[i] = strconv.FormatUint(uint64(q.Min), 10)
			if q.Max != q.Min {
				list[i] += "-" + strconv.FormatUint(uint64(q.Max), 10)
			}
		}
		r = append(r, field{Key: "lqpn", Text: strings.Join(list, ","), Value: list})
	}
	if a.Has(AttrResPDN) {
		r = append(r, u32Field("pdn", s.PDN))
	}
	if a.Has(AttrResCQN) {
		r = append(r, u32Field("cqn", s.CQN))
	}
	return ownerFields(r, &s.Object, driver)
}

// Row returns the SRQ's fields in a new Row (AppendRow).
func (s *SRQ) Row(driver bool) Row { return s.AppendRow(make(Row, 0, 12), driver) }

// AppendRow appends to r the cm_id as rdma/res-cmid.c res_cm_id_line prints it,
// addresses as "src-addr 10.0.0.1:7174". Addresses of families other than
// IPv4 and IPv6 print as "AF_n" (iproute2 drops the whole line).
// A caller that prints many objects reuses one r (r[:0]).
func (x *CMID) AppendRow(r Row, driver bool) Row {
	a := &x.Attrs
	r = linkFields(r, &x.Object, x.Port, a.Has(AttrPortIndex))
	if a.Has(AttrResCMIDN) {
		r = append(r, u32Field("cm-idn", x.CMIDN))
	}
	if a.Has(AttrResLQPN) {
		r = append(r, u32Field("lqpn", x.LQPN))
	}
	if a.Has(AttrResType) {
		r = append(r, strField("qp-type", x.QPType.IPRoute2()))
	}
	r = append(r, strField("state", x.State.String()), strField("ps", x.PS.String()))
	r = ownerFields(r, &x.Object, false)
	for _, sa := range []struct {
		key string
		has bool
		sa  SockAddr
	}{{"src", a.Has(AttrResSrcAddr), x.Src}, {"dst", a.Has(AttrResDstAddr), x.Dst}} {
		if !sa.has {
			continue
		}
		text := "AF_" + strconv.Itoa(int(sa.sa.Family))
		if sa.sa.Addr.IsValid() {
			text = sa.sa.Addr.Addr().String() + ":" + strconv.Itoa(int(sa.sa.Addr.Port()))
		}
		r = append(r, strField(sa.key+"-addr", text))
		port := u32Field(sa.key+"-port", uint32(sa.sa.Addr.Port()))
		port.NoText, port.NoJSON = true, true
		r = append(r, port)
	}
	if driver {
		r = driverFields(r, x.Driver)
	}
	return r
}

// Row returns the cm_id's fields in a new Row (AppendRow).
func (x *CMID) Row(driver bool) Row { return x.AppendRow(make(Row, 0, 16), driver) }

// Row returns the summary as `rdma resource show` prints it:
// "0: rxe0: pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0".
func (s *Summary) Row() Row {
	idx := strconv.FormatUint(uint64(s.DevIndex), 10)
	r := Row{
		{Key: "ifindex", Text: idx + ":", Value: uint64(s.DevIndex), Num: uint64(s.DevIndex), IsNum: true, Bare: true},
		{Key: "ifname", Text: s.DevName + ":", Value: s.DevName, Bare: true},
	}
	for _, c := range s.Counts {
		r = append(r, u64Field(c.Name, c.Count))
	}
	return r
}
