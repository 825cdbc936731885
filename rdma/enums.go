package rdma

import (
	"fmt"
	"strings"
)

// NodeType is enum ibv_node_type (verbs.h) and the kernel's enum
// rdma_node_type (include/rdma/ib_verbs.h): what kind of node a device
// is.
type NodeType int

// Node types, values as in verbs.h.
const (
	NodeTypeUnknown     NodeType = -1
	NodeTypeCA          NodeType = 1 // IBV_NODE_CA: a channel adapter (every RoCE NIC, rxe)
	NodeTypeSwitch      NodeType = 2
	NodeTypeRouter      NodeType = 3
	NodeTypeRNIC        NodeType = 4 // IBV_NODE_RNIC: iWARP
	NodeTypeUSNIC       NodeType = 5
	NodeTypeUSNICUDP    NodeType = 6
	NodeTypeUnspecified NodeType = 7
)

var nodeTypeNames = []string{"", "CA", "switch", "router", "RNIC", "usNIC", "usNIC UDP", "unspecified"}

// nodeTypeIPRoute2 are node_type_to_str's names (iproute2 rdma/dev.c).
var nodeTypeIPRoute2 = []string{"unknown", "ca", "switch", "router", "rnic", "usnic", "usnic_udp", "unspecified"}

// String names the node type as ibv_devinfo prints it
// (ibv_node_type_str(3)): "CA", "RNIC", "unknown" for NodeTypeUnknown.
func (t NodeType) String() string {
	if t == NodeTypeUnknown {
		return "unknown"
	}
	return nameIn(nodeTypeNames, int(t))
}

// IPRoute2 names the node type as `rdma dev` prints it (node_type_to_str
// in iproute2 rdma/dev.c): "ca", "rnic", else "unknown".
func (t NodeType) IPRoute2() string { return nameOr(nodeTypeIPRoute2, int(t), "unknown") }

// Transport is enum ibv_transport_type (verbs.h).
type Transport int

// Transports, values as in verbs.h. RoCE devices report InfiniBand: the
// Ethernet part shows in the port's link layer.
const (
	TransportUnknown     Transport = -1
	TransportIB          Transport = 0
	TransportIWARP       Transport = 1
	TransportUSNIC       Transport = 2
	TransportUSNICUDP    Transport = 3
	TransportUnspecified Transport = 4
)

var transportNames = []string{"InfiniBand", "iWARP", "usNIC", "usNIC UDP", "unspecified"}

// String names the transport as ibv_devinfo prints it
// (ibv_transport_type_str in libibverbs/verbs.c).
func (t Transport) String() string {
	if t == TransportUnknown {
		return "unknown"
	}
	return nameIn(transportNames, int(t))
}

// PortState is enum ibv_port_state (ibv_query_port(3)) and the kernel's
// enum ib_port_state (include/rdma/ib_verbs.h).
type PortState int

// Port states, values as in verbs.h.
const (
	PortStateNop         PortState = 0
	PortStateDown        PortState = 1
	PortStateInit        PortState = 2
	PortStateArmed       PortState = 3
	PortStateActive      PortState = 4
	PortStateActiveDefer PortState = 5
)

var portStateNames = []string{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"}

// PortStateNames are the port states' names, NOP to ACTIVE_DEFER (enum
// ib_port_state order), as String and IPRoute2 print them.
func PortStateNames() []string { return append([]string(nil), portStateNames...) }

// String is the state's name without IBV_PORT_ (ibv_devinfo prints
// PORT_ACTIVE).
func (s PortState) String() string { return nameIn(portStateNames, int(s)) }

// Up reports whether a port in the state passes traffic: ACTIVE, the one
// state of enum ib_port_state (include/rdma/ib_verbs.h; ibv_query_port(3))
// in which it sends and receives data packets. Every part that says
// "port up" or "port down" asks here.
func (s PortState) Up() bool { return s == PortStateActive }

// IPRoute2 names the state as `rdma link` prints it (link_state_to_str
// in iproute2 rdma/link.c): the same names, else "UNKNOWN".
func (s PortState) IPRoute2() string { return nameOr(portStateNames, int(s), "UNKNOWN") }

// PhysState is the port's physical state (ibv_port_attr.phys_state; the
// kernel's enum ib_port_phys_state in include/rdma/ib_verbs.h; sysfs
// ports/N/phys_state).
type PhysState int

// Physical states, values as in enum ib_port_phys_state.
const (
	PhysStateSleep                     PhysState = 1
	PhysStatePolling                   PhysState = 2
	PhysStateDisabled                  PhysState = 3
	PhysStatePortConfigurationTraining PhysState = 4
	PhysStateLinkUp                    PhysState = 5
	PhysStateLinkErrorRecovery         PhysState = 6
	PhysStatePhyTest                   PhysState = 7
)

var physStateNames = []string{"", "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING",
	"LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST"}

// physStateIPRoute2 are phys_state_to_str's names (iproute2 rdma/link.c),
// which include OPA's states and spell some others differently.
var physStateIPRoute2 = []string{"NOP", "SLEEP", "POLLING", "DISABLED", "ARMED", "LINK_UP",
	"LINK_ERROR_RECOVER", "PHY_TEST", "UNKNOWN", "OPA_OFFLINE", "UNKNOWN", "OPA_TEST"}

// String names the physical state as ibv_devinfo prints it.
func (s PhysState) String() string { return nameIn(physStateNames, int(s)) }

// IPRoute2 names the physical state as `rdma link` prints it
// (phys_state_to_str in iproute2 rdma/link.c), else "UNKNOWN".
func (s PhysState) IPRoute2() string { return nameOr(physStateIPRoute2, int(s), "UNKNOWN") }

// MTU is enum ibv_mtu (verbs.h): path MTU codes, not bytes.
type MTU int

// MTU codes: enum ibv_mtu in verbs.h.
const (
	MTU256  MTU = 1
	MTU512  MTU = 2
	MTU1024 MTU = 3
	MTU2048 MTU = 4
	MTU4096 MTU = 5
)

// Bytes is the MTU in bytes (enum ibv_mtu code n means 128<<n bytes), 0
// for an invalid code.
func (m MTU) Bytes() int {
	if m < MTU256 || m > MTU4096 {
		return 0
	}
	return 128 << int(m)
}

// MTUFromBytes is the enum ibv_mtu code for 256..4096 bytes.
func MTUFromBytes(n int) (MTU, bool) {
	for m := MTU256; m <= MTU4096; m++ {
		if m.Bytes() == n {
			return m, true
		}
	}
	return 0, false
}

// String is the MTU in bytes, as ibv_devinfo prints it; an invalid code
// prints as Unknown does.
func (m MTU) String() string {
	if b := m.Bytes(); b > 0 {
		return fmt.Sprint(b)
	}
	return Unknown(int(m))
}

// LinkLayer is the port's link layer (IBV_LINK_LAYER_*, ibv_query_port(3)).
type LinkLayer int

// Link layers, values as in verbs.h.
const (
	LinkLayerUnspecified LinkLayer = 0
	LinkLayerIB          LinkLayer = 1
	LinkLayerEthernet    LinkLayer = 2
)

// String names the link layer as ibv_devinfo prints it.
func (l LinkLayer) String() string {
	return nameIn([]string{"unspecified", "InfiniBand", "Ethernet"}, int(l))
}

// GIDType is enum ibv_gid_type (ibv_query_gid_ex(3)).
type GIDType int

// GID types, values as in verbs.h.
const (
	GIDTypeIB     GIDType = 0
	GIDTypeRoCEv1 GIDType = 1
	GIDTypeRoCEv2 GIDType = 2
)

// String names the GID type as ibv_devinfo prints it ("RoCE v2").
func (t GIDType) String() string { return nameIn([]string{"IB", "RoCE v1", "RoCE v2"}, int(t)) }

// AtomicCap is enum ibv_atomic_cap (ibv_query_device(3)).
type AtomicCap int

// Atomic capabilities, values as in verbs.h.
const (
	AtomicNone AtomicCap = 0
	AtomicHCA  AtomicCap = 1 // atomic within this HCA
	AtomicGlob AtomicCap = 2 // atomic across HCAs and CPUs
)

// String is the verbs.h name (ATOMIC_HCA), as ibv_devinfo prints it.
func (a AtomicCap) String() string {
	return nameIn([]string{"ATOMIC_NONE", "ATOMIC_HCA", "ATOMIC_GLOB"}, int(a))
}

// Unknown is how every enum of the vocabulary prints a value its table
// does not name: "UNKNOWN(9)", the number as the kernel or libibverbs
// sent it.
func Unknown(v int) string { return fmt.Sprintf("UNKNOWN(%d)", v) }

// nameIn is names[v], or Unknown(v) where v has no name ("" in names).
func nameIn(names []string, v int) string {
	// Not nameOr(names, v, Unknown(v)): that formats the fallback on
	// every call, named values too.
	if v >= 0 && v < len(names) && names[v] != "" {
		return names[v]
	}
	return Unknown(v)
}

// nameOr is names[v], or fallback where v has no name: iproute2 prints
// one word ("UNKNOWN") for every value it does not know.
func nameOr(names []string, v int, fallback string) string {
	if v >= 0 && v < len(names) && names[v] != "" {
		return names[v]
	}
	return fallback
}

// parseName reads a value's name in any case, with or without the
// verbs.h prefix ("rts", "IBV_QPS_RTS"): the index of the name in names.
func parseName[T ~int](s, prefix string, names []string) (T, bool) {
	s = strings.TrimPrefix(strings.ToUpper(s), prefix)
	for i, n := range names {
		if n == s && n != "" {
			return T(i), true
		}
	}
	return 0, false
}
