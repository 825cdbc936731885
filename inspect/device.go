package inspect

import (
	"context"
	"fmt"

	"github.com/mdlayher/netlink"
)

// Device is one RDMA device as RDMA_NLDEV_CMD_GET reports it
// (fill_dev_info in drivers/infiniband/core/nldev.c; `rdma dev show`,
// rdma-dev(8)). Netlink carries no device limits (max_qp and friends):
// those come from ibv_query_device(3).
type Device struct {
	Index uint32 // RDMA_NLDEV_ATTR_DEV_INDEX
	Name  string // RDMA_NLDEV_ATTR_DEV_NAME
	// Ports is the number of ports (RDMA_NLDEV_ATTR_PORT_INDEX in a
	// device reply is rdma_end_port()).
	Ports        uint32
	CapFlags     uint64   // RDMA_NLDEV_ATTR_CAP_FLAGS, device_cap_flags
	FWVersion    string   // RDMA_NLDEV_ATTR_FW_VERSION; absent for rxe
	NodeGUID     uint64   // RDMA_NLDEV_ATTR_NODE_GUID, host order
	SysImageGUID uint64   // RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, host order
	NodeType     NodeType // RDMA_NLDEV_ATTR_DEV_NODE_TYPE
	// AdaptiveModeration is RDMA_NLDEV_ATTR_DEV_DIM: the device's CQ
	// DIM setting.
	AdaptiveModeration bool
	Protocol           string // RDMA_NLDEV_ATTR_DEV_PROTOCOL: ib, roce, iw, opa, usnic
	Type               uint8  // RDMA_NLDEV_ATTR_DEV_TYPE (newer kernels)
	ParentName         string // RDMA_NLDEV_ATTR_PARENT_NAME (newer kernels)
	NameAssignType     uint8  // RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE (newer kernels)
	Attrs              AttrSet
}

// Port is one port as RDMA_NLDEV_CMD_PORT_GET reports it (fill_port_info
// in nldev.c; `rdma link show`, rdma-link(8)). LID, SM LID, LMC, subnet
// prefix and capability flags are sent for InfiniBand ports only.
type Port struct {
	DevIndex     uint32
	DevName      string
	Port         uint32    // RDMA_NLDEV_ATTR_PORT_INDEX
	CapFlags     uint64    // RDMA_NLDEV_ATTR_CAP_FLAGS: port_cap_flags | cap_flags2<<32
	SubnetPrefix uint64    // RDMA_NLDEV_ATTR_SUBNET_PREFIX
	LID          uint32    // RDMA_NLDEV_ATTR_LID
	SMLID        uint32    // RDMA_NLDEV_ATTR_SM_LID
	LMC          uint8     // RDMA_NLDEV_ATTR_LMC
	State        PortState // RDMA_NLDEV_ATTR_PORT_STATE
	PhysState    PhysState // RDMA_NLDEV_ATTR_PORT_PHYS_STATE
	NetdevIndex  uint32    // RDMA_NLDEV_ATTR_NDEV_INDEX (RoCE, iWARP)
	Netdev       string    // RDMA_NLDEV_ATTR_NDEV_NAME
	Attrs        AttrSet
}

// Devices lists the RDMA devices in the caller's network namespace with a
// RDMA_NLDEV_CMD_GET dump (nldev_get_dumpit), in kernel index order.
func (c *Conn) Devices() ([]Device, error) { return c.devices(context.Background()) }

func (c *Conn) devices(ctx context.Context) ([]Device, error) {
	const op = "device dump"
	var devs []Device
	err := c.do(ctx, op, request{cmd: CmdGet, dump: true}, func(m netlink.Message) error {
		d, err := decodeDevice(m.Data)
		if err != nil {
			return malformed(op, err)
		}
		devs = append(devs, d)
		return nil
	})
	return devs, err
}

func decodeDevice(data []byte) (Device, error) {
	var d Device
	it := newAttrIter(data)
	for it.next() {
		switch it.typ {
		case AttrDevIndex:
			d.Index = it.u32()
		case AttrDevName:
			d.Name = it.str()
		case AttrPortIndex:
			d.Ports = it.u32()
		case AttrCapFlags:
			d.CapFlags = it.u64()
		case AttrFWVersion:
			d.FWVersion = it.str()
		case AttrNodeGUID:
			d.NodeGUID = it.u64()
		case AttrSysImageGUID:
			d.SysImageGUID = it.u64()
		case AttrDevNodeType:
			d.NodeType = NodeType(it.u8())
		case AttrDevDIM:
			d.AdaptiveModeration = it.u8() != 0
		case AttrDevProtocol:
			d.Protocol = it.str()
		case AttrDevType:
			d.Type = it.u8()
		case AttrParentName:
			d.ParentName = it.str()
		case AttrNameAssignType:
			d.NameAssignType = it.u8()
		}
		d.Attrs.Add(it.typ)
	}
	if it.err != nil {
		return d, it.err
	}
	if !d.Attrs.Has(AttrDevIndex) || !d.Attrs.Has(AttrDevName) {
		return d, fmt.Errorf("device reply lacks the index or name")
	}
	return d, nil
}

// Ports lists the ports of the device dev (empty: every device) with one
// RDMA_NLDEV_CMD_PORT_GET dump per device (nldev_port_get_dumpit).
func (c *Conn) Ports(dev string) ([]Port, error) {
	ctx := context.Background()
	devs, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	if devs, err = selectDevices("port dump", devs, dev); err != nil {
		return nil, err
	}
	var out []Port
	for _, d := range devs {
		if out, err = c.ports(ctx, d, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (c *Conn) ports(ctx context.Context, d Device, out []Port) ([]Port, error) {
	op := "port dump: " + d.Name
	r := request{cmd: CmdPortGet, dump: true, attrs: []reqAttr{{typ: AttrDevIndex, u32: d.Index}}}
	err := c.do(ctx, op, r, func(m netlink.Message) error {
		p, err := decodePort(m.Data)
		if err != nil {
			return malformed(op, err)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

func decodePort(data []byte) (Port, error) {
	var p Port
	it := newAttrIter(data)
	for it.next() {
		switch it.typ {
		case AttrDevIndex:
			p.DevIndex = it.u32()
		case AttrDevName:
			p.DevName = it.str()
		case AttrPortIndex:
			p.Port = it.u32()
		case AttrCapFlags:
			p.CapFlags = it.u64()
		case AttrSubnetPrefix:
			p.SubnetPrefix = it.u64()
		case AttrLID:
			p.LID = it.u32()
		case AttrSMLID:
			p.SMLID = it.u32()
		case AttrLMC:
			p.LMC = it.u8()
		case AttrPortState:
			p.State = PortState(it.u8())
		case AttrPortPhysState:
			p.PhysState = PhysState(it.u8())
		case AttrNdevIndex:
			p.NetdevIndex = it.u32()
		case AttrNdevName:
			p.Netdev = it.str()
		}
		p.Attrs.Add(it.typ)
	}
	if it.err != nil {
		return p, it.err
	}
	if !p.Attrs.Has(AttrDevIndex) || !p.Attrs.Has(AttrPortIndex) {
		return p, fmt.Errorf("port reply lacks the device or port index")
	}
	return p, nil
}
