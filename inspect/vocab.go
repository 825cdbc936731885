package inspect

import "github.com/verbscope/verbscope/rdma"

// The enums inspect's objects carry are the shared RDMA vocabulary
// (package rdma, mirroring include/rdma/ib_verbs.h); inspect's rows
// print them with IPRoute2, the spelling of iproute2's rdma tool.
type (
	// QPType is enum ib_qp_type (RDMA_NLDEV_ATTR_RES_TYPE).
	QPType = rdma.QPType
	// QPState is enum ib_qp_state (RDMA_NLDEV_ATTR_RES_STATE); the kernel
	// reads it live with ib_query_qp() on every dump.
	QPState = rdma.QPState
	// PathMigState is enum ib_mig_state (RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE).
	PathMigState = rdma.MigState
	// PortState is enum ib_port_state (RDMA_NLDEV_ATTR_PORT_STATE).
	PortState = rdma.PortState
	// PhysState is enum ib_port_phys_state (RDMA_NLDEV_ATTR_PORT_PHYS_STATE).
	PhysState = rdma.PhysState
	// NodeType is enum rdma_node_type (RDMA_NLDEV_ATTR_DEV_NODE_TYPE).
	NodeType = rdma.NodeType
	// Kind names an object kind as rdma-resource(8) does.
	Kind = rdma.Kind
)
