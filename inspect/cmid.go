package inspect

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// CMID is one RDMA CM identifier (rdma_cm(7)) as
// RDMA_NLDEV_CMD_RES_CM_ID_GET reports it (fill_res_cm_id_entry in
// drivers/infiniband/core/nldev.c; `rdma resource show cm_id`,
// rdma-resource(8)). Only cm_ids bound to a device are listed.
type CMID struct {
	Object
	Port  uint32 // RDMA_NLDEV_ATTR_PORT_INDEX, absent while unbound
	CMIDN uint32 // RDMA_NLDEV_ATTR_RES_CM_IDN
	// LQPN and QPType are sent once the cm_id has a QP.
	LQPN   uint32
	QPType QPType
	State  CMState   // RDMA_NLDEV_ATTR_RES_STATE
	PS     PortSpace // RDMA_NLDEV_ATTR_RES_PS
	// Src and Dst are RDMA_NLDEV_ATTR_RES_SRC_ADDR and _DST_ADDR.
	Src, Dst SockAddr
}

// SockAddr is a struct __kernel_sockaddr_storage from a cm_id: Addr is
// valid for AF_INET and AF_INET6; other families (AF_IB) keep only the
// family.
type SockAddr struct {
	Family uint16
	Addr   netip.AddrPort
}

// Address families of include/linux/socket.h.
const (
	afInet  = 2
	afInet6 = 10
)

// decodeSockAddr reads the family and, for IPv4 and IPv6, the address and
// the port (network order) of a sockaddr_storage.
func decodeSockAddr(b []byte) (SockAddr, error) {
	if len(b) < 2 {
		return SockAddr{}, fmt.Errorf("socket address of %d bytes", len(b))
	}
	sa := SockAddr{Family: binary.NativeEndian.Uint16(b)}
	switch sa.Family {
	case afInet: // struct sockaddr_in: family, port, 4-byte address
		if len(b) < 8 {
			return sa, fmt.Errorf("AF_INET address of %d bytes", len(b))
		}
		sa.Addr = netip.AddrPortFrom(netip.AddrFrom4([4]byte(b[4:8])), binary.BigEndian.Uint16(b[2:]))
	case afInet6: // struct sockaddr_in6: family, port, flowinfo, address, scope
		if len(b) < 28 {
			return sa, fmt.Errorf("AF_INET6 address of %d bytes", len(b))
		}
		a := netip.AddrFrom16([16]byte(b[8:24]))
		if scope := binary.NativeEndian.Uint32(b[24:]); scope != 0 && a.Is6() {
			a = a.WithZone(fmt.Sprint(scope))
		}
		sa.Addr = netip.AddrPortFrom(a, binary.BigEndian.Uint16(b[2:]))
	}
	return sa, nil
}

var cmidKind = kind[CMID]{
	name: "cm_id", cmd: CmdResCMIDGet, table: AttrResCMID, entry: AttrResCMIDEntry, perPort: true,
	required: []Attr{AttrResState, AttrResPS}, // rdma/res-cmid.c res_cm_id_line
	obj:      func(x *CMID) *Object { return &x.Object },
	port:     func(x *CMID) uint32 { return x.Port },
	field: func(it *attrIter, x *CMID) {
		switch it.typ {
		case AttrPortIndex:
			x.Port = it.u32()
		case AttrResCMIDN:
			x.CMIDN = it.u32()
		case AttrResLQPN:
			x.LQPN = it.u32()
		case AttrResType:
			x.QPType = QPType(it.u8())
		case AttrResState:
			x.State = CMState(it.u8())
		case AttrResPS:
			x.PS = PortSpace(it.u32())
		case AttrResSrcAddr, AttrResDstAddr:
			sa, err := decodeSockAddr(it.val)
			if err != nil && it.err == nil {
				it.err = err
			}
			if it.typ == AttrResSrcAddr {
				x.Src = sa
			} else {
				x.Dst = sa
			}
		}
	},
}

// CMIDs dumps the RDMA CM identifiers of the devices and port q selects.
func (c *Conn) CMIDs(q Query) ([]CMID, error) { return dumpKind(c, &cmidKind, q, c.freshComm()) }
