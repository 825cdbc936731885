package sysfsmon

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// Rows: the devices, ports, GIDs, counters and interrupts as view rows,
// the model the CLI's tables and -j, the dashboard and the exporter
// render. Each field's Text is the table cell (TextKey its column), each
// Value the JSON value under Key; a field only one of the views shows is
// NoText or NoJSON, so one row holds the table's column order and the
// JSON's key order. Every row has an identity (view.IDKey).

// column is a table cell only.
func column(header, text string) view.Field {
	return view.Field{Key: strings.ToLower(header), TextKey: header, Text: text, NoJSON: true}
}

// cell is a table cell and a JSON value.
func cell(key, header, text string, v any) view.Field {
	f := view.Field{Key: key, TextKey: header, Text: text, Value: v}
	switch n := v.(type) {
	case int64:
		f.Num, f.IsNum = uint64(n), n >= 0
	case uint64:
		f.Num, f.IsNum = n, true
	}
	return f
}

// value is a JSON value only.
func value(key string, v any) view.Field {
	f := cell(key, "", "", v)
	f.NoText = true
	return f
}

// hidden is a field only filters see.
func hidden(f view.Field) view.Field {
	f.NoText, f.NoJSON = true, true
	return f
}

// dash shows an empty value as "-".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func itoa(n int) string { return strconv.Itoa(n) }

func hexText(v uint64, digits int) string { return fmt.Sprintf("0x%0*x", digits, v) }

// Row returns the device as a line of `verbscope devices` (its ports as
// rows of PortRow in the JSON); its identity is the device name.
func (d *Device) Row() view.Row {
	pci := d.PCI
	if d.Soft {
		pci = "virtual"
	}
	numa := "-"
	if d.NUMANode != nil {
		numa = itoa(*d.NUMANode)
	}
	ports := make([]view.Row, len(d.Ports))
	for i := range d.Ports {
		ports[i] = d.Ports[i].Row()
	}
	if d.Ports == nil {
		ports = nil
	}
	return view.Row{
		view.IDField(d.Name),
		cell("dev", "DEV", d.Name, d.Name),
		value("node_type_num", int64(d.NodeType)),
		cell("node_type", "TYPE", dash(d.NodeTypeName), d.NodeTypeName),
		column("FW", dash(d.FWVer)),
		column("HCA", dash(d.HCAType)),
		cell("node_guid", "NODE_GUID", dash(d.NodeGUID), d.NodeGUID),
		value("sys_image_guid", d.SysImageGUID),
		value("fw_ver", d.FWVer),
		value("hca_type", d.HCAType),
		value("board_id", d.BoardID),
		value("hw_rev", d.HWRev),
		value("node_desc", d.NodeDesc),
		value("parent", d.Parent),
		value("soft", d.Soft),
		column("NETDEVS", dash(strings.Join(d.Netdevs, ","))),
		cell("pci", "PCI", dash(pci), d.PCI),
		value("driver", d.Driver),
		value("module", d.Module),
		cell("numa_node", "NUMA", numa, d.NUMANode),
		value("local_cpus", d.LocalCPUs),
		value("netdevs", d.Netdevs),
		column("PORTS", itoa(len(d.Ports))),
		cell("uverbs", "UVERBS", dash(d.Uverbs), d.Uverbs),
		value("ports", ports),
		value("warnings", d.Warnings),
	}
}

// DetailRow returns the facts `verbscope devices -d` adds below the
// table, as one "key value" line: "rxe0: sys_image_guid ... local_cpus -".
func (d *Device) DetailRow() view.Row {
	return view.Row{
		view.IDField(d.Name),
		{Key: "dev", Text: d.Name + ":", Value: d.Name, Bare: true},
		{Key: "sys_image_guid", Text: dash(d.SysImageGUID)},
		{Key: "board_id", Text: dash(d.BoardID)},
		{Key: "hw_rev", Text: dash(d.HWRev)},
		{Key: "node_desc", Text: strconv.Quote(d.NodeDesc)},
		{Key: "parent", Text: dash(d.Parent)},
		{Key: "local_cpus", Text: dash(d.LocalCPUs)},
	}
}

// noSM tells an ACTIVE InfiniBand port whose LID is known to be 0: no
// subnet manager has assigned it one (IBTA vol. 1, 14.2.5), and no QP
// can reach it by LID.
func (p *Port) noSM() bool {
	return p.LIDKnown && p.LID == 0 && p.LinkLayer == "InfiniBand" && p.State.Up()
}

// lidCell shows a LID, "?" (null in JSON) when its file was missing, and
// with noSM the reason a LID of 0 is trouble.
func lidCell(key, header string, lid uint16, known, noSM bool) view.Field {
	if !known {
		return cell(key, header, "?", nil)
	}
	text := hexText(uint64(lid), 0)
	if noSM {
		text += " (no SM)"
	}
	return cell(key, header, text, uint64(lid))
}

// Row returns the port as a line of `verbscope ports`; its identity is
// "DEV/PORT".
func (p *Port) Row() view.Row {
	mtu, idx := "-", "-"
	if p.NetdevMTU > 0 {
		mtu = itoa(p.NetdevMTU)
	}
	if p.RecommendedGIDIndex >= 0 {
		idx = itoa(p.RecommendedGIDIndex)
	}
	return view.Row{
		view.IDField(p.Device + "/" + itoa(p.Port)),
		cell("dev", "DEV", p.Device, p.Device),
		cell("port", "PORT", itoa(p.Port), int64(p.Port)),
		value("state_num", int64(p.State)),
		cell("state", "STATE", dash(p.StateName), p.StateName),
		value("phys_state_num", int64(p.PhysState)),
		cell("phys_state", "PHYS", dash(p.PhysStateName), p.PhysStateName),
		cell("rate", "RATE", dash(p.RateText), p.RateText),
		value("rate_gbps", p.Gbps),
		value("width", p.Width),
		value("speed", p.Speed),
		column("LINK", dash(p.LinkLayer)),
		lidCell("lid", "LID", p.LID, p.LIDKnown, p.noSM()),
		lidCell("sm_lid", "SM_LID", p.SMLID, p.SMLIDKnown, false),
		value("lid_known", p.LIDKnown),
		value("sm_lid_known", p.SMLIDKnown),
		cell("sm_sl", "SM_SL", itoa(int(p.SMSL)), uint64(p.SMSL)),
		cell("lmc", "LMC", itoa(int(p.LMC)), uint64(p.LMC)),
		cell("cap_mask", "CAP_MASK", hexText(uint64(p.CapMask), 8), uint64(p.CapMask)),
		value("link_layer", p.LinkLayer),
		cell("netdev", "NETDEV", dash(p.Netdev), p.Netdev),
		cell("netdev_mtu", "MTU", mtu, int64(p.NetdevMTU)),
		value("netdev_operstate", p.NetdevState),
		column("GIDS", fmt.Sprintf("%d/%d", len(p.GIDs), p.GIDTableLen)),
		value("gid_tbl_len", int64(p.GIDTableLen)),
		value("gids", p.GIDs),
		cell("recommended_gid_index", "GID_IDX", idx, int64(p.RecommendedGIDIndex)),
		value("pkey_tbl_len", int64(p.PKeyTableLen)),
		value("pkeys", p.PKeys),
	}
}

// GIDRows returns the port's populated GIDs as lines of `verbscope gids`
// (rdma-core's show_gids); the GID to use for RoCE v2 over IPv4 has its
// index marked "*". Each identity is "DEV/PORT/INDEX".
func (p *Port) GIDRows() []view.Row {
	rows := make([]view.Row, 0, len(p.GIDs))
	for _, g := range p.GIDs {
		rec := g.Index == p.RecommendedGIDIndex
		idx := itoa(g.Index)
		if rec {
			idx += "*"
		}
		rows = append(rows, view.Row{
			view.IDField(p.Device + "/" + itoa(p.Port) + "/" + itoa(g.Index)),
			cell("dev", "DEV", p.Device, p.Device),
			cell("port", "PORT", itoa(p.Port), int64(p.Port)),
			cell("index", "INDEX", idx, int64(g.Index)),
			cell("gid", "GID", g.GID, g.GID),
			value("addr", g.Addr),
			cell("ip", "IP", g.IP, g.IP),
			value("ipv4", g.IPv4),
			cell("type", "TYPE", dash(g.Type), g.Type),
			cell("netdev", "NETDEV", dash(g.Netdev), g.Netdev),
			value("recommended", rec),
		})
	}
	return rows
}

// Row returns the counter as a line of `verbscope counters`; with
// interval the line has the change and rate since the first snapshot
// (CounterRates). Its identity is Counter.Key. What the counter registry
// knows of it follows the value (meaning, class, side, terminal, bits);
// an unknown counter says so. An unavailable counter's value is null.
func (r *CounterRate) Row(interval bool) view.Row {
	unit, scale := r.Unit()
	total := float64(r.Value) * float64(scale)
	var v any = r.Value
	text := valueText(unit, total, r.Value)
	if r.Unavailable {
		v, text = nil, "n/a"
	}
	row := view.Row{
		view.IDField(r.Key()),
		cell("dev", "DEV", r.Device, r.Device),
		cell("port", "PORT", itoa(r.Port), int64(r.Port)),
		cell("group", "GROUP", r.Group, r.Group),
		cell("name", "NAME", r.Name, r.Name),
		cell("value", "VALUE", text, v),
		value("error", r.Error),
	}
	if r.Driver != "" {
		row = append(row, value("driver", r.Driver))
	}
	if r.Unavailable {
		row = append(row, value("unavailable", true))
	}
	row = append(row, value("unit", unit.String()))
	if unit == UnitBytes && !r.Unavailable {
		row = append(row, value("bytes", r.Value*scale))
	}
	if interval {
		d := strconv.FormatUint(r.Delta, 10)
		switch {
		case r.Unavailable:
			d = "-"
		case r.Reset:
			d = "reset"
		}
		rt := rateText(unit, r.Rate*float64(scale))
		if r.Unavailable {
			rt = "-"
		}
		row = append(row,
			cell("delta", "DELTA", d, r.Delta),
			cell("rate", "RATE", rt, r.Rate),
			value("reset", r.Reset))
		if unit == UnitBytes && !r.Unavailable {
			row = append(row, value("byte_rate", r.Rate*float64(scale)))
		}
	}
	mark := ""
	if r.Error {
		mark = "!"
	}
	return append(append(row, column("ERR", mark)), registryFields(r.Counter)...)
}

// registryFields are what the counter registry knows of c, as the last
// fields of its row: the meaning column, and in JSON meaning, class,
// side, terminal and bits (when the kernel says), or known false.
func registryFields(c Counter) []view.Field {
	in, ok := c.info()
	if !ok {
		return []view.Field{cell("meaning", "MEANING", "unknown: not in the counter registry", nil), value("known", false)}
	}
	fs := []view.Field{
		cell("meaning", "MEANING", in.Meaning, in.Meaning),
		value("known", true),
		cell("class", "", string(in.Class), string(in.Class)),
		value("side", string(in.Side)),
		value("terminal", in.Terminal),
	}
	fs[2].NoText = true
	if in.Bits > 0 {
		fs = append(fs, value("bits", in.Bits))
	}
	if in.Signal != "" {
		fs = append(fs, value("signal", string(in.Signal)))
	}
	return fs
}

// compactRate prints a per-second rate compactly: "0", "2.5", "2500".
func compactRate(r float64) string {
	switch {
	case r == 0:
		return "0"
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	default:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
}

// Row returns the device with its interrupts as one object of `verbscope
// irqs -j`: cpus are the snapshot's CPU columns, compVectors the device's
// num_comp_vectors from libibverbs (nil when not asked), rates those of
// IRQRates for this device (nil without an interval).
func (d *DeviceIRQs) Row(cpus []int, compVectors *int, rates []IRQRate) view.Row {
	r := view.Row{
		view.IDField(d.Device),
		cell("dev", "DEV", d.Device, d.Device),
		value("pci", d.PCI),
		value("numa_node", d.NUMANode),
		value("netdevs", d.Netdevs),
		value("soft", d.Soft),
		value("irqs", d.IRQs),
	}
	if d.NoIRQs != "" {
		r = append(r, value("no_irqs", d.NoIRQs))
	}
	r = append(r, value("warnings", d.Warnings), value("cpus", cpus), value("num_comp_vectors", compVectors))
	if len(rates) > 0 {
		r = append(r, value("rates", rates))
	}
	return r
}

// IRQRows returns the device's interrupts as the table of `verbscope
// irqs`: a column per CPU with the counts, or withRates the interrupts
// per second of rates (IRQRates). Each identity is the IRQ number.
func (d *DeviceIRQs) IRQRows(cpus []int, rates []IRQRate, withRates bool) []view.Row {
	byIRQ := map[int]IRQRate{}
	for _, r := range d.RatesOf(rates) {
		byIRQ[r.IRQ] = r
	}
	rows := make([]view.Row, 0, len(d.IRQs))
	for _, q := range d.IRQs {
		rt, withRate := byIRQ[q.IRQ], withRates
		row := view.Row{
			view.IDField(itoa(q.IRQ)),
			hidden(cell("dev", "", d.Device, d.Device)),
			cell("irq", "IRQ", itoa(q.IRQ), int64(q.IRQ)),
			cell("name", "NAME", dash(q.Name), q.Name),
			cell("mode", "MODE", dash(q.Mode), q.Mode),
			cell("matched_by", "MATCH", q.MatchedBy, q.MatchedBy),
			cell("smp_affinity_list", "AFFINITY", dash(q.Affinity), q.Affinity),
			cell("effective_affinity_list", "EFFECTIVE", dash(q.Effective), q.Effective),
			cell("affinity_hint", "HINT", dash(q.Hint), q.Hint),
			cell("node", "NODE", itoa(q.Node), int64(q.Node)),
		}
		for i, c := range cpus {
			text := "-"
			switch {
			case withRate && i < len(rt.PerCPU):
				text = compactRate(rt.PerCPU[i])
			case !withRate && i < len(q.Counts):
				text = strconv.FormatUint(q.Counts[i], 10)
			}
			row = append(row, column("CPU"+itoa(c), text))
		}
		if withRate {
			row = append(row, cell("rate", "RATE/s", compactRate(rt.Rate), rt.Rate))
		} else {
			row = append(row, cell("total", "TOTAL", strconv.FormatUint(q.Total, 10), q.Total))
		}
		rows = append(rows, row)
	}
	return rows
}
