package rdma

import (
	"fmt"
	"strings"
)

// QPState is enum ibv_qp_state (ibv_modify_qp(3)) and the kernel's enum
// ib_qp_state (include/rdma/ib_verbs.h; nldev's RDMA_NLDEV_ATTR_RES_STATE).
type QPState int

// QP states, values as in verbs.h.
const (
	QPStateReset   QPState = 0
	QPStateInit    QPState = 1
	QPStateRTR     QPState = 2 // ready to receive
	QPStateRTS     QPState = 3 // ready to send
	QPStateSQD     QPState = 4 // send queue drained
	QPStateSQE     QPState = 5 // send queue error
	QPStateErr     QPState = 6
	QPStateUnknown QPState = 7 // IBV_QPS_UNKNOWN: libibverbs only
)

var qpStateNames = []string{"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR", "UNKNOWN"}

// QPStateNames are the names of the QP states RESET to ERR, as String and
// IPRoute2 print them.
func QPStateNames() []string { return append([]string(nil), qpStateNames[:QPStateErr+1]...) }

// String is the state's name without IBV_QPS_ (RTS).
func (s QPState) String() string { return nameIn(qpStateNames, int(s)) }

// IPRoute2 names the state as `rdma resource show qp` prints it
// (qp_states_to_str in iproute2 rdma/res-qp.c): RESET to ERR, else
// "UNKNOWN".
func (s QPState) IPRoute2() string { return nameOr(qpStateNames[:QPStateErr+1], int(s), "UNKNOWN") }

// Failed reports whether the state is one a QP falls into on an error
// (enum ib_qp_state, include/rdma/ib_verbs.h): SQE, a send work request
// completed in error and the receive queue still works, or ERR, every
// work request is flushed.
func (s QPState) Failed() bool { return s == QPStateSQE || s == QPStateErr }

// ParseQPState reads a state name ("rts", "RTS", "IBV_QPS_RTS"). The names
// are those of enum ibv_qp_state.
func ParseQPState(s string) (QPState, bool) {
	return parseName[QPState](s, "IBV_QPS_", qpStateNames)
}

// QPType is enum ibv_qp_type (ibv_create_qp(3)); the numbers are shared
// with the kernel's enum ib_qp_type (include/rdma/ib_verbs.h), so netlink
// dumps use them too.
type QPType int

// QP types, values as in verbs.h and ib_verbs.h (SMI, GSI and the raw
// IPv6 and Ethertype QPs exist only in the kernel).
const (
	QPTypeSMI          QPType = 0
	QPTypeGSI          QPType = 1
	QPTypeRC           QPType = 2
	QPTypeUC           QPType = 3
	QPTypeUD           QPType = 4
	QPTypeRawIPv6      QPType = 5
	QPTypeRawEthertype QPType = 6
	QPTypeRawPacket    QPType = 8
	QPTypeXRCSend      QPType = 9  // kernel: XRC_INI
	QPTypeXRCRecv      QPType = 10 // kernel: XRC_TGT
	QPTypeDriver       QPType = 0xff
)

var qpTypeNames = []string{"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "",
	"RAW_PACKET", "XRC_SEND", "XRC_RECV"}

// qpTypeIPRoute2 are qp_types_to_str's names (iproute2 rdma/res.c): the
// kernel's, XRC_INI and XRC_TGT for libibverbs' XRC_SEND and XRC_RECV.
var qpTypeIPRoute2 = []string{"SMI", "GSI", "RC", "UC", "UD", "RAW_IPV6", "RAW_ETHERTYPE", "UNKNOWN",
	"RAW_PACKET", "XRC_INI", "XRC_TGT"}

// QPTypeNames are the names of the kernel's QP types as
// IPRoute2 prints them, DRIVER last: the words a QP row can show.
func QPTypeNames() []string {
	var out []string
	for _, n := range qpTypeIPRoute2 {
		if n != "UNKNOWN" {
			out = append(out, n)
		}
	}
	return append(out, "DRIVER")
}

// String is the type's name without IBV_QPT_ (RC, XRC_SEND).
func (t QPType) String() string {
	if t == QPTypeDriver {
		return "DRIVER"
	}
	return nameIn(qpTypeNames, int(t))
}

// IPRoute2 names the type as `rdma resource show` prints it
// (qp_types_to_str in iproute2 rdma/res.c): "RC", "XRC_INI", "DRIVER",
// else "UNKNOWN".
func (t QPType) IPRoute2() string {
	if t == QPTypeDriver {
		return "DRIVER"
	}
	return nameOr(qpTypeIPRoute2, int(t), "UNKNOWN")
}

// ParseQPType reads a type name ("rc", "UD", "IBV_QPT_UC", "XRC_INI"). The
// names are those of enum ibv_qp_type and the kernel's enum ib_qp_type.
func ParseQPType(s string) (QPType, bool) {
	s = strings.TrimPrefix(strings.ToUpper(s), "IBV_QPT_")
	if s == "DRIVER" {
		return QPTypeDriver, true
	}
	for i := range qpTypeNames {
		if (qpTypeNames[i] == s || qpTypeIPRoute2[i] == s) && s != "" && s != "UNKNOWN" {
			return QPType(i), true
		}
	}
	return 0, false
}

// QPAttrMask is enum ibv_qp_attr_mask (ibv_modify_qp(3), ibv_query_qp(3)):
// which fields of a QPAttr a modify sets or a query returns.
type QPAttrMask uint32

// Mask bits: IBV_QP_<NAME> in verbs.h is Attr<Name> here.
const (
	AttrState            QPAttrMask = 1 << 0
	AttrCurState         QPAttrMask = 1 << 1
	AttrEnSQDAsyncNotify QPAttrMask = 1 << 2
	AttrAccessFlags      QPAttrMask = 1 << 3
	AttrPKeyIndex        QPAttrMask = 1 << 4
	AttrPort             QPAttrMask = 1 << 5
	AttrQKey             QPAttrMask = 1 << 6
	AttrAV               QPAttrMask = 1 << 7
	AttrPathMTU          QPAttrMask = 1 << 8
	AttrTimeout          QPAttrMask = 1 << 9
	AttrRetryCnt         QPAttrMask = 1 << 10
	AttrRNRRetry         QPAttrMask = 1 << 11
	AttrRQPSN            QPAttrMask = 1 << 12
	AttrMaxQPRdAtomic    QPAttrMask = 1 << 13
	AttrAltPath          QPAttrMask = 1 << 14
	AttrMinRNRTimer      QPAttrMask = 1 << 15
	AttrSQPSN            QPAttrMask = 1 << 16
	AttrMaxDestRdAtomic  QPAttrMask = 1 << 17
	AttrPathMigState     QPAttrMask = 1 << 18
	AttrCap              QPAttrMask = 1 << 19
	AttrDestQPN          QPAttrMask = 1 << 20
	AttrRateLimit        QPAttrMask = 1 << 25
)

// qpMaskNames are the attribute names in ibv_modify_qp(3) order, as the
// shell and the checker print them (IBV_QP_ without the prefix).
var qpMaskNames = []struct {
	bit  QPAttrMask
	name string
}{
	{AttrState, "STATE"}, {AttrCurState, "CUR_STATE"}, {AttrEnSQDAsyncNotify, "EN_SQD_ASYNC_NOTIFY"},
	{AttrAccessFlags, "ACCESS_FLAGS"}, {AttrPKeyIndex, "PKEY_INDEX"}, {AttrPort, "PORT"}, {AttrQKey, "QKEY"},
	{AttrAV, "AV"}, {AttrPathMTU, "PATH_MTU"}, {AttrTimeout, "TIMEOUT"}, {AttrRetryCnt, "RETRY_CNT"},
	{AttrRNRRetry, "RNR_RETRY"}, {AttrRQPSN, "RQ_PSN"}, {AttrMaxQPRdAtomic, "MAX_QP_RD_ATOMIC"},
	{AttrAltPath, "ALT_PATH"}, {AttrMinRNRTimer, "MIN_RNR_TIMER"}, {AttrSQPSN, "SQ_PSN"},
	{AttrMaxDestRdAtomic, "MAX_DEST_RD_ATOMIC"}, {AttrPathMigState, "PATH_MIG_STATE"}, {AttrCap, "CAP"},
	{AttrDestQPN, "DEST_QPN"}, {AttrRateLimit, "RATE_LIMIT"},
}

// AttrBits lists every named bit of enum ibv_qp_attr_mask, in
// ibv_modify_qp(3) order.
func AttrBits() []QPAttrMask {
	out := make([]QPAttrMask, len(qpMaskNames))
	for i, b := range qpMaskNames {
		out[i] = b.bit
	}
	return out
}

// Names lists the mask's bits by name in ibv_modify_qp(3) order; unknown
// bits come last as hex.
func (m QPAttrMask) Names() []string {
	var out []string
	for _, b := range qpMaskNames {
		if m&b.bit != 0 {
			out = append(out, b.name)
			m &^= b.bit
		}
	}
	if m != 0 {
		out = append(out, fmt.Sprintf("0x%x", uint32(m)))
	}
	return out
}

// String joins the mask's names with | (STATE|PORT), or "0".
func (m QPAttrMask) String() string {
	if m == 0 {
		return "0"
	}
	return strings.Join(m.Names(), "|")
}

// ParseQPAttrMaskBit reads one attribute name ("dest_qpn", "IBV_QP_AV",
// "path_mtu"); the shell and explain use it. The names are those of enum
// ibv_qp_attr_mask.
func ParseQPAttrMaskBit(s string) (QPAttrMask, bool) {
	s = strings.TrimPrefix(strings.ToUpper(s), "IBV_QP_")
	if s == "MTU" { // the first seed's code says IBV_QP_MTU; verbs.h says PATH_MTU
		s = "PATH_MTU"
	}
	for _, b := range qpMaskNames {
		if b.name == s {
			return b.bit, true
		}
	}
	return 0, false
}

// MigState is enum ibv_mig_state (path migration, ibv_modify_qp(3)) and
// the kernel's enum ib_mig_state (RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE).
type MigState int

// Path migration states, values as in verbs.h.
const (
	MigStateMigrated MigState = 0
	MigStateRearm    MigState = 1
	MigStateArmed    MigState = 2
)

var migStateNames = []string{"MIGRATED", "REARM", "ARMED"}

// MigStateNames are the path migration states' names, MIGRATED to ARMED.
func MigStateNames() []string { return append([]string(nil), migStateNames...) }

// String is the path migration state's name (MIGRATED).
func (m MigState) String() string { return nameIn(migStateNames, int(m)) }

// IPRoute2 names the state as `rdma resource show qp` prints it
// (path_mig_to_str in iproute2 rdma/res-qp.c), else "UNKNOWN".
func (m MigState) IPRoute2() string { return nameOr(migStateNames, int(m), "UNKNOWN") }

// AccessFlags is enum ibv_access_flags (ibv_reg_mr(3), ibv_modify_qp(3)).
type AccessFlags uint32

// Access flags, values as in verbs.h.
const (
	AccessLocalWrite   AccessFlags = 1 << 0
	AccessRemoteWrite  AccessFlags = 1 << 1
	AccessRemoteRead   AccessFlags = 1 << 2
	AccessRemoteAtomic AccessFlags = 1 << 3
	AccessMWBind       AccessFlags = 1 << 4
	AccessZeroBased    AccessFlags = 1 << 5
	AccessOnDemand     AccessFlags = 1 << 6
	AccessHugeTLB      AccessFlags = 1 << 7
)

// accessNames[i] names bit i.
var accessNames = []string{"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC", "MW_BIND", "ZERO_BASED", "ON_DEMAND", "HUGETLB"}

// String joins the flags' names with | (LOCAL_WRITE|REMOTE_WRITE), or "0".
func (a AccessFlags) String() string { return flagNames(uint32(a), accessNames) }

// ParseAccessFlag reads one flag name ("remote_write",
// "IBV_ACCESS_LOCAL_WRITE"). The names are those of enum ibv_access_flags.
func ParseAccessFlag(s string) (AccessFlags, bool) {
	i, ok := parseName[int](s, "IBV_ACCESS_", accessNames)
	return AccessFlags(1) << i, ok
}

// GlobalRoute is struct ibv_global_route: the GRH of an address vector,
// required on RoCE (is_global=1), where there are no LIDs.
type GlobalRoute struct {
	DGID         GID
	FlowLabel    uint32
	SGIDIndex    uint8
	HopLimit     uint8
	TrafficClass uint8
}

// AHAttr is struct ibv_ah_attr: an address vector (ibv_create_ah(3), and
// the AV of an RC/UC QP at INIT->RTR).
type AHAttr struct {
	GRH         GlobalRoute
	DLID        uint16
	SL          uint8
	SrcPathBits uint8
	StaticRate  uint8
	IsGlobal    bool
	PortNum     uint8
}

// QPCap is struct ibv_qp_cap: a QP's queue sizes (ibv_create_qp(3)).
type QPCap struct {
	MaxSendWR     uint32
	MaxRecvWR     uint32
	MaxSendSGE    uint32
	MaxRecvSGE    uint32
	MaxInlineData uint32
}

// QPAttr is struct ibv_qp_attr (ibv_modify_qp(3), ibv_query_qp(3)). Only
// the fields named by the accompanying QPAttrMask are meaningful.
type QPAttr struct {
	State            QPState
	CurState         QPState
	PathMTU          MTU
	PathMigState     MigState
	QKey             uint32
	RQPSN            uint32
	SQPSN            uint32
	DestQPN          uint32
	AccessFlags      AccessFlags
	Cap              QPCap
	AH               AHAttr
	AltAH            AHAttr
	PKeyIndex        uint16
	AltPKeyIndex     uint16
	EnSQDAsyncNotify bool
	SQDraining       bool
	MaxRdAtomic      uint8 // max_rd_atomic: outstanding RDMA reads/atomics this QP initiates
	MaxDestRdAtomic  uint8 // max_dest_rd_atomic: ... it accepts as responder
	MinRNRTimer      uint8
	Port             uint8
	Timeout          uint8
	RetryCnt         uint8
	RNRRetry         uint8
	AltPort          uint8
	AltTimeout       uint8
	RateLimit        uint32
}
