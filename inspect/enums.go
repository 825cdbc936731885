package inspect

import "strconv"

// The value sets the kernel sends in u8/u32 attributes that only nldev
// has. Names are spelled the way iproute2's rdma tool prints them
// (rdma/res-*.c, link.c, dev.c), so that text and JSON views match `rdma
// resource show` exactly. The enums the verbs share (QP types and states,
// port and physical states, node types) are package rdma's (vocab.go),
// printed with their IPRoute2 spelling.

// PollCtx is how a kernel CQ is polled, enum ib_poll_context in
// include/rdma/ib_verbs.h (RDMA_NLDEV_ATTR_RES_POLL_CTX).
type PollCtx uint8

var pollCtxNames = [...]string{"DIRECT", "SOFTIRQ", "WORKQUEUE", "UNBOUND_WORKQUEUE"}

// String returns the name rdma/res-cq.c prints (poll_ctx_to_str).
func (p PollCtx) String() string { return nameOr(pollCtxNames[:], int(p), "UNKNOWN") }

// SRQType is enum ib_srq_type (RDMA_NLDEV_ATTR_RES_TYPE of an SRQ).
type SRQType uint8

var srqTypeNames = [...]string{"BASIC", "XRC", "TM"}

// String returns BASIC, XRC or TM (srq_types_to_str in rdma/res-srq.c).
func (t SRQType) String() string { return nameOr(srqTypeNames[:], int(t), "UNKNOWN") }

// CMState is an rdma_cm_id's state, enum rdma_cm_state in
// drivers/infiniband/core/cma_priv.h.
type CMState uint8

var cmStateNames = [...]string{"IDLE", "ADDR_QUERY", "ADDR_RESOLVED",
	"ROUTE_QUERY", "ROUTE_RESOLVED", "CONNECT", "DISCONNECT", "ADDR_BOUND",
	"LISTEN", "DEVICE_REMOVAL", "DESTROYING"}

// String returns the name rdma/res-cmid.c prints (cm_id_state_to_str).
func (s CMState) String() string { return nameOr(cmStateNames[:], int(s), "UNKNOWN") }

// PortSpace is an rdma_cm_id's port space, enum rdma_ucm_port_space in
// include/uapi/rdma/rdma_user_cm.h (RDMA_NLDEV_ATTR_RES_PS).
type PortSpace uint32

// Port spaces of enum rdma_ucm_port_space.
const (
	PortSpaceIPoIB PortSpace = 0x0002 // RDMA_PS_IPOIB
	PortSpaceIB    PortSpace = 0x013F // RDMA_PS_IB
	PortSpaceTCP   PortSpace = 0x0106 // RDMA_PS_TCP
	PortSpaceUDP   PortSpace = 0x0111 // RDMA_PS_UDP
)

// String returns what rdma/res-cmid.c prints (cm_id_ps_to_str): TCP, UDP,
// IPoIB (also for RDMA_PS_IB, as iproute2 does), else "---".
func (p PortSpace) String() string {
	switch p {
	case PortSpaceIPoIB, PortSpaceIB:
		return "IPoIB"
	case PortSpaceTCP:
		return "TCP"
	case PortSpaceUDP:
		return "UDP"
	}
	return "---"
}

// CounterMode is enum rdma_nl_counter_mode in rdma_netlink.h: how QPs are
// bound to per-QP counters (rdma-statistic(8) "qp mode").
type CounterMode uint32

// Counter modes of enum rdma_nl_counter_mode.
const (
	CounterModeNone   CounterMode = 0 // RDMA_COUNTER_MODE_NONE
	CounterModeAuto   CounterMode = 1 // RDMA_COUNTER_MODE_AUTO
	CounterModeManual CounterMode = 2 // RDMA_COUNTER_MODE_MANUAL
)

var counterModeNames = [...]string{"none", "auto", "manual"}

// String returns none, auto or manual.
func (m CounterMode) String() string { return nameOr(counterModeNames[:], int(m), "unknown") }

// Auto-mode criteria of enum rdma_nl_counter_mask.
const (
	CounterMaskQPType uint32 = 1 << 0 // RDMA_COUNTER_MASK_QP_TYPE
	CounterMaskPID    uint32 = 1 << 1 // RDMA_COUNTER_MASK_PID
)

// NetnsMode is the RDMA subsystem's network namespace mode
// (RDMA_NLDEV_SYS_ATTR_NETNS_MODE; rdma-system(8)).
type NetnsMode uint8

// String returns "exclusive" (0) or "shared" (1), as `rdma system` prints.
func (m NetnsMode) String() string {
	return nameOr([]string{"exclusive", "shared"}, int(m), "unknown")
}

func nameOr(names []string, i int, fallback string) string {
	if i >= 0 && i < len(names) {
		return names[i]
	}
	return fallback
}

// attrName names an attribute in error messages: "RES_LQPN (21)".
func attrName(a Attr) string {
	if int(a) < len(attrNames) {
		return attrNames[a] + " (" + strconv.Itoa(int(a)) + ")"
	}
	return "attribute " + strconv.Itoa(int(a))
}

// attrNames are the rdma_nldev_attr names without their prefix, in ABI
// order (index = value).
var attrNames = [...]string{
	"PAD (UNSPEC)", "DEV_INDEX", "DEV_NAME", "PORT_INDEX", "CAP_FLAGS", "FW_VERSION", "NODE_GUID",
	"SYS_IMAGE_GUID", "SUBNET_PREFIX", "LID", "SM_LID", "LMC", "PORT_STATE", "PORT_PHYS_STATE",
	"DEV_NODE_TYPE", "RES_SUMMARY", "RES_SUMMARY_ENTRY", "RES_SUMMARY_ENTRY_NAME",
	"RES_SUMMARY_ENTRY_CURR", "RES_QP", "RES_QP_ENTRY", "RES_LQPN", "RES_RQPN", "RES_RQ_PSN",
	"RES_SQ_PSN", "RES_PATH_MIG_STATE", "RES_TYPE", "RES_STATE", "RES_PID", "RES_KERN_NAME",
	"RES_CM_ID", "RES_CM_ID_ENTRY", "RES_PS", "RES_SRC_ADDR", "RES_DST_ADDR", "RES_CQ",
	"RES_CQ_ENTRY", "RES_CQE", "RES_USECNT", "RES_POLL_CTX", "RES_MR", "RES_MR_ENTRY", "RES_RKEY",
	"RES_LKEY", "RES_IOVA", "RES_MRLEN", "RES_PD", "RES_PD_ENTRY", "RES_LOCAL_DMA_LKEY",
	"RES_UNSAFE_GLOBAL_RKEY", "NDEV_INDEX", "NDEV_NAME", "DRIVER", "DRIVER_ENTRY", "DRIVER_STRING",
	"DRIVER_PRINT_TYPE", "DRIVER_S32", "DRIVER_U32", "DRIVER_S64", "DRIVER_U64", "RES_PDN", "RES_CQN",
	"RES_MRN", "RES_CM_IDN", "RES_CTXN", "LINK_TYPE", "SYS_ATTR_NETNS_MODE", "DEV_PROTOCOL",
	"NET_NS_FD", "CHARDEV_TYPE", "CHARDEV_NAME", "CHARDEV_ABI", "CHARDEV", "UVERBS_DRIVER_ID",
	"STAT_MODE", "STAT_RES", "STAT_AUTO_MODE_MASK", "STAT_COUNTER", "STAT_COUNTER_ENTRY",
	"STAT_COUNTER_ID", "STAT_HWCOUNTERS", "STAT_HWCOUNTER_ENTRY", "STAT_HWCOUNTER_ENTRY_NAME",
	"STAT_HWCOUNTER_ENTRY_VALUE", "DEV_DIM", "RES_RAW", "RES_CTX", "RES_CTX_ENTRY", "RES_SRQ",
	"RES_SRQ_ENTRY", "RES_SRQN", "MIN_RANGE", "MAX_RANGE", "SYS_ATTR_COPY_ON_FORK",
	"STAT_HWCOUNTER_INDEX", "STAT_HWCOUNTER_DYNAMIC", "SYS_ATTR_PRIVILEGED_QKEY_MODE",
	"DRIVER_DETAILS", "RES_SUBTYPE", "DEV_TYPE", "PARENT_NAME", "NAME_ASSIGN_TYPE",
}
