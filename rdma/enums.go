package rdma

import "fmt"

// NodeType is enum ibv_node_type (verbs.h): what kind of node a device is.
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

// String names the node type as ibv_devinfo prints it.
func (t NodeType) String() string {
	return enumName(int(t), map[int]string{-1: "unknown", 1: "CA", 2: "switch", 3: "router", 4: "RNIC", 5: "usNIC", 6: "usNIC UDP", 7: "unspecified"})
}

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

// String names the transport as ibv_devinfo prints it.
func (t Transport) String() string {
	return enumName(int(t), map[int]string{-1: "unknown", 0: "InfiniBand", 1: "iWARP", 2: "usNIC", 3: "usNIC UDP", 4: "unspecified"})
}

// PortState is enum ibv_port_state (ibv_query_port(3)).
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

// String is the state's name without IBV_PORT_ (ibv_devinfo prints PORT_ACTIVE).
func (s PortState) String() string {
	return enumName(int(s), map[int]string{0: "NOP", 1: "DOWN", 2: "INIT", 3: "ARMED", 4: "ACTIVE", 5: "ACTIVE_DEFER"})
}

// PhysState is the port's physical state (ibv_port_attr.phys_state, IBTA
// PortPhysicalState; sysfs ports/N/phys_state).
type PhysState int

// String names the physical state as ibv_devinfo prints it.
func (s PhysState) String() string {
	return enumName(int(s), map[int]string{1: "SLEEP", 2: "POLLING", 3: "DISABLED", 4: "PORT_CONFIGURATION_TRAINING", 5: "LINK_UP", 6: "LINK_ERROR_RECOVERY", 7: "PHY_TEST"})
}

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

// String is the MTU in bytes, as ibv_devinfo prints it.
func (m MTU) String() string {
	if b := m.Bytes(); b > 0 {
		return fmt.Sprint(b)
	}
	return fmt.Sprintf("invalid MTU code %d", int(m))
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
	return enumName(int(l), map[int]string{0: "unspecified", 1: "InfiniBand", 2: "Ethernet"})
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
func (t GIDType) String() string {
	return enumName(int(t), map[int]string{0: "IB", 1: "RoCE v1", 2: "RoCE v2"})
}

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
	return enumName(int(a), map[int]string{0: "ATOMIC_NONE", 1: "ATOMIC_HCA", 2: "ATOMIC_GLOB"})
}

func enumName(v int, names map[int]string) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("unknown(%d)", v)
}

// Unknown is how every enum of the vocabulary prints a value its table
// does not name: "UNKNOWN(9)", the number as the kernel or libibverbs
// sent it.
func Unknown(v int) string { return fmt.Sprintf("UNKNOWN(%d)", v) }
