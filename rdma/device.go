package rdma

import (
	"fmt"
	"net"
	"strings"
)

// DeviceAttr mirrors struct ibv_device_attr filled by ibv_query_device(3).
type DeviceAttr struct {
	FWVer              string
	NodeGUID           uint64 // host byte order
	SysImageGUID       uint64 // host byte order
	MaxMRSize          uint64
	PageSizeCap        uint64
	VendorID           uint32
	VendorPartID       uint32
	HWVer              uint32
	MaxQP              int
	MaxQPWR            int
	DeviceCapFlags     uint32
	MaxSGE             int
	MaxSGERd           int
	MaxCQ              int
	MaxCQE             int
	MaxMR              int
	MaxPD              int
	MaxQPRdAtom        int
	MaxEECRdAtom       int
	MaxResRdAtom       int
	MaxQPInitRdAtom    int
	MaxEECInitRdAtom   int
	AtomicCap          AtomicCap
	MaxEE              int
	MaxRDD             int
	MaxMW              int
	MaxRawIPv6QP       int
	MaxRawEthyQP       int
	MaxMcastGrp        int
	MaxMcastQPAttach   int
	MaxTotalMcastQPAtt int
	MaxAH              int
	MaxFMR             int
	MaxMapPerFMR       int
	MaxSRQ             int
	MaxSRQWR           int
	MaxSRQSGE          int
	MaxPKeys           int
	LocalCAAckDelay    int
	PhysPortCnt        int
}

// PortAttr mirrors struct ibv_port_attr filled by ibv_query_port(3).
type PortAttr struct {
	State         PortState
	MaxMTU        MTU
	ActiveMTU     MTU
	GIDTblLen     int
	PortCapFlags  uint32
	MaxMsgSz      uint32
	BadPKeyCntr   uint32
	QKeyViolCntr  uint32
	PKeyTblLen    int
	LID           uint16
	SMLID         uint16
	LMC           uint8
	MaxVLNum      uint8
	SMSL          uint8
	SubnetTimeout uint8
	InitTypeReply uint8
	ActiveWidth   uint8 // IB encoding: 1=1X 2=4X 4=8X 8=12X 16=2X
	ActiveSpeed   uint8 // IB encoding: 1=2.5G 2=5G 4=10G 8=10G(FDR10) 16=14G 32=25G ...
	PhysState     PhysState
	LinkLayer     LinkLayer
	Flags         uint8
	PortCapFlags2 uint16
}

// GID is a 128-bit port address (ibv_query_gid(3), union ibv_gid).
type GID [16]byte

// IP returns the GID (union ibv_gid, an IPv6 address) as an IP address:
// IPv4-mapped GIDs (RoCE v2 over IPv4) read as IPv4.
func (g GID) IP() net.IP { return net.IP(g[:]) }

// IsZero reports an empty GID table slot (ibv_query_gid(3) returns zeros
// for unused entries).
func (g GID) IsZero() bool { return g == GID{} }

// IsIPv4 mirrors rdma_gid2ip (include/rdma/ib_addr.h): an IPv4-mapped
// GID (RoCE v2 over IPv4) names an IPv4 address.
func (g GID) IsIPv4() bool { return g.IP().To4() != nil && !g.IsZero() }

// String prints the GID the way ibv_devinfo -v does: IPv6 notation, with
// IPv4-mapped addresses as ::ffff:a.b.c.d.
func (g GID) String() string {
	ip := g.IP()
	if v4 := ip.To4(); v4 != nil && !g.IsZero() {
		return "::ffff:" + v4.String()
	}
	return ip.String()
}

// Raw prints the GID as sysfs does: eight groups of four hex digits
// (/sys/class/infiniband/DEV/ports/N/gids/I, drivers/infiniband/core/sysfs.c).
func (g GID) Raw() string {
	var b strings.Builder
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		fmt.Fprintf(&b, "%02x%02x", g[i], g[i+1])
	}
	return b.String()
}

// GIDEntry is one populated GID table entry, struct ibv_gid_entry from
// ibv_query_gid_ex(3) / ibv_query_gid_table(3).
type GIDEntry struct {
	GID           GID
	Index         int
	Port          int
	Type          GIDType
	NetdevIfindex int // 0 for IB
}
