package verbs

import "github.com/verbscope/verbscope/rdma"

// The types of verbs' own API are the shared RDMA vocabulary (package
// rdma, which mirrors verbs.h and include/rdma/ib_verbs.h); they are
// aliases, so a verbs.QPState is an rdma.QPState.
type (
	AHAttr      = rdma.AHAttr      // AHAttr is rdma.AHAttr.
	AccessFlags = rdma.AccessFlags // AccessFlags is rdma.AccessFlags.
	AtomicCap   = rdma.AtomicCap   // AtomicCap is rdma.AtomicCap.
	DeviceAttr  = rdma.DeviceAttr  // DeviceAttr is rdma.DeviceAttr.
	EventType   = rdma.EventType   // EventType is rdma.EventType.
	GID         = rdma.GID         // GID is rdma.GID.
	GIDEntry    = rdma.GIDEntry    // GIDEntry is rdma.GIDEntry.
	GIDType     = rdma.GIDType     // GIDType is rdma.GIDType.
	GlobalRoute = rdma.GlobalRoute // GlobalRoute is rdma.GlobalRoute.
	LinkLayer   = rdma.LinkLayer   // LinkLayer is rdma.LinkLayer.
	MTU         = rdma.MTU         // MTU is rdma.MTU.
	MigState    = rdma.MigState    // MigState is rdma.MigState.
	NodeType    = rdma.NodeType    // NodeType is rdma.NodeType.
	PhysState   = rdma.PhysState   // PhysState is rdma.PhysState.
	PortAttr    = rdma.PortAttr    // PortAttr is rdma.PortAttr.
	PortState   = rdma.PortState   // PortState is rdma.PortState.
	QPAttr      = rdma.QPAttr      // QPAttr is rdma.QPAttr.
	QPAttrMask  = rdma.QPAttrMask  // QPAttrMask is rdma.QPAttrMask.
	QPCap       = rdma.QPCap       // QPCap is rdma.QPCap.
	QPState     = rdma.QPState     // QPState is rdma.QPState.
	QPType      = rdma.QPType      // QPType is rdma.QPType.
	SendFlags   = rdma.SendFlags   // SendFlags is rdma.SendFlags.
	Transport   = rdma.Transport   // Transport is rdma.Transport.
	WCFlags     = rdma.WCFlags     // WCFlags is rdma.WCFlags.
	WCOpcode    = rdma.WCOpcode    // WCOpcode is rdma.WCOpcode.
	WCStatus    = rdma.WCStatus    // WCStatus is rdma.WCStatus.
	WROpcode    = rdma.WROpcode    // WROpcode is rdma.WROpcode.
)
