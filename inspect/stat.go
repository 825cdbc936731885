package inspect

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/mdlayher/netlink"
)

// HWCounter is one hardware counter: an RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY
// with its name and value (rdma_nl_stat_hwcounter_entry in nldev.c). The
// names are the driver's: the files of /sys/class/infiniband/DEV/ports/N/
// hw_counters, e.g. rxe's retry_exceeded_err.
type HWCounter struct {
	Name  string
	Value uint64
}

// PortCounters are one port's hardware counters as RDMA_NLDEV_CMD_STAT_GET
// reports them for a device and port (stat_get_doit_default_counter in
// nldev.c; `rdma statistic show link DEV/PORT`, rdma-statistic(8)).
type PortCounters struct {
	DevIndex uint32
	DevName  string
	Port     uint32
	Counters []HWCounter
}

// Counter returns the value of the named counter and whether it exists.
func (p *PortCounters) Counter(name string) (uint64, bool) {
	return findCounter(p.Counters, name)
}

func findCounter(cs []HWCounter, name string) (uint64, bool) {
	for _, c := range cs {
		if c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// PortCounters reads the hardware counters of every port of the device
// dev (empty: all devices), one STAT_GET per port as `rdma statistic
// show` does. Ports whose device keeps no counters are left out.
func (c *Conn) PortCounters(dev string) ([]PortCounters, error) {
	ctx := context.Background()
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	if devs, err = selectDevices("port counters", devs, dev); err != nil {
		return nil, err
	}
	var out []PortCounters
	for _, d := range devs {
		for p := uint32(1); p <= d.Ports; p++ {
			pc, err := c.portCounters(ctx, d, p)
			if noCounters(err) {
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, pc)
		}
	}
	return out, nil
}

// noCounters recognizes the kernel's answer for a port without hardware
// counters (EOPNOTSUPP, or EINVAL from older kernels).
func noCounters(err error) bool {
	return errors.Is(err, ErrUnsupported) || errors.Is(err, syscall.EINVAL)
}

func (c *Conn) portCounters(ctx context.Context, d Device, port uint32) (PortCounters, error) {
	op := fmt.Sprintf("port counters: %s/%d", d.Name, port)
	var pc PortCounters
	r := request{cmd: CmdStatGet, attrs: []reqAttr{{typ: AttrDevIndex, u32: d.Index}, {typ: AttrPortIndex, u32: port}}}
	err := c.do(ctx, op, r, func(m netlink.Message) error {
		var err error
		if pc, err = decodePortCounters(m.Data); err != nil {
			return malformed(op, err)
		}
		return nil
	})
	return pc, err
}

func decodePortCounters(data []byte) (PortCounters, error) {
	var pc PortCounters
	h, hw, found, err := splitReply(data, AttrStatHWCounters, "", func(it *attrIter) {
		if it.typ == AttrPortIndex {
			pc.Port = it.u32()
		}
	})
	if err != nil {
		return pc, err
	}
	pc.DevIndex, pc.DevName = h.index, h.name
	if !h.has.Has(AttrPortIndex) || !found {
		return pc, fmt.Errorf("counter reply lacks the port or the counter table")
	}
	pc.Counters, err = decodeHWCounters(hw)
	return pc, err
}

// decodeHWCounters decodes an RDMA_NLDEV_ATTR_STAT_HWCOUNTERS nest.
func decodeHWCounters(b []byte) ([]HWCounter, error) {
	var out []HWCounter
	err := forEachEntry(b, AttrStatHWCounterEntry, func(i int, payload []byte) error {
		var hc HWCounter
		var has AttrSet
		it := newAttrIter(payload)
		for it.next() {
			switch it.typ {
			case AttrStatHWCounterEntryName:
				hc.Name = it.str()
			case AttrStatHWCounterEntryValue:
				hc.Value = it.u64()
			}
			has.Add(it.typ)
		}
		if it.err != nil {
			return fmt.Errorf("counter %d: %w", i, it.err)
		}
		if !has.Has(AttrStatHWCounterEntryName) || !has.Has(AttrStatHWCounterEntryValue) {
			return fmt.Errorf("counter %d lacks its name or value", i)
		}
		out = append(out, hc)
		return nil
	})
	return out, err
}

// PortCounterMode is how a port binds QPs to counters
// (RDMA_NLDEV_ATTR_STAT_MODE and STAT_AUTO_MODE_MASK; `rdma statistic qp
// mode`, rdma-statistic(8)): "qp auto off", "qp auto type on" ...
type PortCounterMode struct {
	DevIndex uint32
	DevName  string
	Port     uint32
	Mode     CounterMode
	AutoMask uint32 // CounterMaskQPType | CounterMaskPID, in auto mode
}

// CounterModes reads the per-QP counter mode of every port of dev (empty:
// all devices), with the STAT_GET request `rdma statistic qp mode` sends
// (stat_one_qp_link_get_mode in rdma/stat.c).
func (c *Conn) CounterModes(dev string) ([]PortCounterMode, error) {
	ctx := context.Background()
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	if devs, err = selectDevices("counter mode", devs, dev); err != nil {
		return nil, err
	}
	var out []PortCounterMode
	for _, d := range devs {
		if out, err = c.counterModes(ctx, d, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (c *Conn) counterModes(ctx context.Context, d Device, out []PortCounterMode) ([]PortCounterMode, error) {
	for p := uint32(1); p <= d.Ports; p++ {
		op := fmt.Sprintf("counter mode: %s/%d", d.Name, p)
		// STAT_MODE in the request asks for the mode rather than the
		// counters (nldev_stat_get_doit -> stat_get_doit_qp).
		r := request{cmd: CmdStatGet, attrs: []reqAttr{
			{typ: AttrDevIndex, u32: d.Index}, {typ: AttrPortIndex, u32: p},
			{typ: AttrStatMode, u32: uint32(CounterModeManual)}, {typ: AttrStatRes, u32: uint32(AttrResQP)},
		}}
		err := c.do(ctx, op, r, func(m netlink.Message) error {
			pm, err := decodeCounterMode(m.Data)
			if err != nil {
				return malformed(op, err)
			}
			out = append(out, pm)
			return nil
		})
		if noCounters(err) {
			continue
		}
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func decodeCounterMode(data []byte) (PortCounterMode, error) {
	var pm PortCounterMode
	h, _, _, err := splitReply(data, AttrPad, "", func(it *attrIter) {
		switch it.typ {
		case AttrPortIndex:
			pm.Port = it.u32()
		case AttrStatMode:
			pm.Mode = CounterMode(it.u32())
		case AttrStatAutoModeMask:
			pm.AutoMask = it.u32()
		}
	})
	pm.DevIndex, pm.DevName = h.index, h.name
	if err == nil && !h.has.Has(AttrPortIndex) {
		err = fmt.Errorf("counter mode reply lacks the port")
	}
	return pm, err
}

// QPCounter is one per-QP counter (a struct rdma_counter, allocated when
// a QP is bound in auto or manual mode) as the STAT_GET dump with
// STAT_RES=RES_QP reports it (fill_res_counter_entry in nldev.c; `rdma
// statistic qp show`, rdma-statistic(8)). Soft devices such as rxe have
// none.
type QPCounter struct {
	Object
	Port     uint32
	ID       uint32      // RDMA_NLDEV_ATTR_STAT_COUNTER_ID (cntn)
	Mode     CounterMode // RDMA_NLDEV_ATTR_STAT_MODE
	QPType   QPType      // RDMA_NLDEV_ATTR_RES_TYPE, auto mode by type
	LQPNs    []uint32    // the QPs bound to the counter
	Counters []HWCounter // RDMA_NLDEV_ATTR_STAT_HWCOUNTERS
}

var qpCounterKind = kind[QPCounter]{
	name: "qp counter", cmd: CmdStatGet, table: AttrStatCounter, entry: AttrStatCounterEntry, perPort: true,
	required: []Attr{AttrStatCounterID},
	obj:      func(x *QPCounter) *Object { return &x.Object },
	port:     func(x *QPCounter) uint32 { return x.Port },
	field: func(it *attrIter, x *QPCounter) {
		var err error
		switch it.typ {
		case AttrPortIndex:
			x.Port = it.u32()
		case AttrStatCounterID:
			x.ID = it.u32()
		case AttrStatMode:
			x.Mode = CounterMode(it.u32())
		case AttrResType:
			x.QPType = QPType(it.u8())
		case AttrResQP:
			x.LQPNs, err = decodeCounterQPs(it.val)
		case AttrStatHWCounters:
			x.Counters, err = decodeHWCounters(it.val)
		}
		if err != nil && it.err == nil {
			it.err = err
		}
	},
}

func decodeCounterQPs(b []byte) ([]uint32, error) {
	var out []uint32
	err := forEachEntry(b, AttrResQPEntry, func(i int, payload []byte) error {
		it := newAttrIter(payload)
		found := false
		for it.next() {
			if it.typ == AttrResLQPN {
				out = append(out, it.u32())
				found = true
			}
		}
		if it.err != nil {
			return it.err
		}
		if !found {
			return fmt.Errorf("counter qp entry %d lacks RES_LQPN", i)
		}
		return nil
	})
	return out, err
}

// QPCounters dumps the per-QP counters of the devices q selects.
func (c *Conn) QPCounters(q Query) ([]QPCounter, error) {
	ctx := context.Background()
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	if devs, err = selectDevices("qp counters", devs, q.Dev); err != nil {
		return nil, err
	}
	var out []QPCounter
	cc := c.freshComm()
	for _, d := range devs {
		if out, err = c.qpCounters(ctx, d, q, cc, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (c *Conn) qpCounters(ctx context.Context, d Device, q Query, cc *commCache, out []QPCounter) ([]QPCounter, error) {
	// The dump needs STAT_RES (nldev_stat_get_dumpit); it is per port
	// in iproute2, but the kernel returns every port's counters when
	// no port is given.
	out, err := dumpKindDev(ctx, c, &qpCounterKind, d, q, cc, out, reqAttr{typ: AttrStatRes, u32: uint32(AttrResQP)})
	if noCounters(err) {
		return out, nil
	}
	return out, err
}
