package inspect

// The nldev ABI: numbers from the kernel's uapi header
// include/uapi/rdma/rdma_netlink.h (also copied in iproute2 as
// rdma/include/uapi/rdma/rdma_netlink.h). The enums there are ABI and only
// ever grow at the end, so these values hold for every kernel that has
// the feature; older kernels simply do not send the newer attributes.

// netlinkRDMA is NETLINK_RDMA from include/uapi/linux/netlink.h.
const netlinkRDMA = 20

// clientNLDEV is RDMA_NL_NLDEV, the RDMA netlink client for devices and
// resources (enum in rdma_netlink.h).
const clientNLDEV = 5

// msgType is RDMA_NL_GET_TYPE(client, op): (client << 10) + op.
func msgType(cmd Command) uint16 { return clientNLDEV<<10 + uint16(cmd) }

// Command is an nldev operation, enum rdma_nldev_command in
// include/uapi/rdma/rdma_netlink.h.
type Command uint16

// Commands of enum rdma_nldev_command. "dump" marks the ones the kernel
// can answer with a multi-part dump (nldev_cb_table in nldev.c).
const (
	// CmdGet is RDMA_NLDEV_CMD_GET: device attributes (dump).
	CmdGet Command = 1
	// CmdSet is RDMA_NLDEV_CMD_SET: rename, netns, DIM (admin only).
	CmdSet Command = 2
	// CmdNewLink is RDMA_NLDEV_CMD_NEWLINK: add rxe/siw links (admin only).
	CmdNewLink Command = 3
	// CmdDelLink is RDMA_NLDEV_CMD_DELLINK (admin only).
	CmdDelLink Command = 4
	// CmdPortGet is RDMA_NLDEV_CMD_PORT_GET: port attributes (dump).
	CmdPortGet Command = 5
	// CmdSysGet is RDMA_NLDEV_CMD_SYS_GET: netns mode, copy-on-fork,
	// privileged qkey.
	CmdSysGet Command = 6
	// CmdSysSet is RDMA_NLDEV_CMD_SYS_SET (admin only).
	CmdSysSet Command = 7
	// CmdResGet is RDMA_NLDEV_CMD_RES_GET: object counts (dump).
	CmdResGet Command = 9
	// CmdResQPGet is RDMA_NLDEV_CMD_RES_QP_GET (dump).
	CmdResQPGet Command = 10
	// CmdResCMIDGet is RDMA_NLDEV_CMD_RES_CM_ID_GET (dump).
	CmdResCMIDGet Command = 11
	// CmdResCQGet is RDMA_NLDEV_CMD_RES_CQ_GET (dump).
	CmdResCQGet Command = 12
	// CmdResMRGet is RDMA_NLDEV_CMD_RES_MR_GET (dump).
	CmdResMRGet Command = 13
	// CmdResPDGet is RDMA_NLDEV_CMD_RES_PD_GET (dump).
	CmdResPDGet Command = 14
	// CmdGetChardev is RDMA_NLDEV_CMD_GET_CHARDEV.
	CmdGetChardev Command = 15
	// CmdStatSet is RDMA_NLDEV_CMD_STAT_SET (admin only).
	CmdStatSet Command = 16
	// CmdStatGet is RDMA_NLDEV_CMD_STAT_GET: port and QP counters (dump).
	CmdStatGet Command = 17
	// CmdStatDel is RDMA_NLDEV_CMD_STAT_DEL (admin only).
	CmdStatDel Command = 18
	// CmdResQPGetRaw is RDMA_NLDEV_CMD_RES_QP_GET_RAW (admin only).
	CmdResQPGetRaw Command = 19
	// CmdResCQGetRaw is RDMA_NLDEV_CMD_RES_CQ_GET_RAW (admin only).
	CmdResCQGetRaw Command = 20
	// CmdResMRGetRaw is RDMA_NLDEV_CMD_RES_MR_GET_RAW (admin only).
	CmdResMRGetRaw Command = 21
	// CmdResCtxGet is RDMA_NLDEV_CMD_RES_CTX_GET (dump).
	CmdResCtxGet Command = 22
	// CmdResSRQGet is RDMA_NLDEV_CMD_RES_SRQ_GET (dump).
	CmdResSRQGet Command = 23
	// CmdStatGetStatus is RDMA_NLDEV_CMD_STAT_GET_STATUS.
	CmdStatGetStatus Command = 24
)

// Attr is a netlink attribute type of enum rdma_nldev_attr in
// include/uapi/rdma/rdma_netlink.h. Comments give the payload type.
type Attr uint16

// Attributes of enum rdma_nldev_attr, in ABI order.
const (
	// AttrPad is RDMA_NLDEV_ATTR_PAD (= UNSPEC): 64-bit alignment padding.
	AttrPad Attr = iota
	// AttrDevIndex is RDMA_NLDEV_ATTR_DEV_INDEX (u32).
	AttrDevIndex
	// AttrDevName is RDMA_NLDEV_ATTR_DEV_NAME (string).
	AttrDevName
	// AttrPortIndex is RDMA_NLDEV_ATTR_PORT_INDEX (u32); in a device
	// reply it is the number of ports.
	AttrPortIndex
	// AttrCapFlags is RDMA_NLDEV_ATTR_CAP_FLAGS (u64).
	AttrCapFlags
	// AttrFWVersion is RDMA_NLDEV_ATTR_FW_VERSION (string).
	AttrFWVersion
	// AttrNodeGUID is RDMA_NLDEV_ATTR_NODE_GUID (u64, host order).
	AttrNodeGUID
	// AttrSysImageGUID is RDMA_NLDEV_ATTR_SYS_IMAGE_GUID (u64, host order).
	AttrSysImageGUID
	// AttrSubnetPrefix is RDMA_NLDEV_ATTR_SUBNET_PREFIX (u64).
	AttrSubnetPrefix
	// AttrLID is RDMA_NLDEV_ATTR_LID (u32).
	AttrLID
	// AttrSMLID is RDMA_NLDEV_ATTR_SM_LID (u32).
	AttrSMLID
	// AttrLMC is RDMA_NLDEV_ATTR_LMC (u8).
	AttrLMC
	// AttrPortState is RDMA_NLDEV_ATTR_PORT_STATE (u8).
	AttrPortState
	// AttrPortPhysState is RDMA_NLDEV_ATTR_PORT_PHYS_STATE (u8).
	AttrPortPhysState
	// AttrDevNodeType is RDMA_NLDEV_ATTR_DEV_NODE_TYPE (u8).
	AttrDevNodeType
	// AttrResSummary is RDMA_NLDEV_ATTR_RES_SUMMARY (nest).
	AttrResSummary
	// AttrResSummaryEntry is RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY (nest).
	AttrResSummaryEntry
	// AttrResSummaryEntryName is RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME (string).
	AttrResSummaryEntryName
	// AttrResSummaryEntryCurr is RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR (u64).
	AttrResSummaryEntryCurr
	// AttrResQP is RDMA_NLDEV_ATTR_RES_QP (nest).
	AttrResQP
	// AttrResQPEntry is RDMA_NLDEV_ATTR_RES_QP_ENTRY (nest).
	AttrResQPEntry
	// AttrResLQPN is RDMA_NLDEV_ATTR_RES_LQPN (u32).
	AttrResLQPN
	// AttrResRQPN is RDMA_NLDEV_ATTR_RES_RQPN (u32, RC and UC only).
	AttrResRQPN
	// AttrResRQPSN is RDMA_NLDEV_ATTR_RES_RQ_PSN (u32, RC and UC only).
	AttrResRQPSN
	// AttrResSQPSN is RDMA_NLDEV_ATTR_RES_SQ_PSN (u32).
	AttrResSQPSN
	// AttrResPathMigState is RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE (u8).
	AttrResPathMigState
	// AttrResType is RDMA_NLDEV_ATTR_RES_TYPE (u8).
	AttrResType
	// AttrResState is RDMA_NLDEV_ATTR_RES_STATE (u8).
	AttrResState
	// AttrResPID is RDMA_NLDEV_ATTR_RES_PID (u32, user objects only).
	AttrResPID
	// AttrResKernName is RDMA_NLDEV_ATTR_RES_KERN_NAME (string, kernel
	// objects only).
	AttrResKernName
	// AttrResCMID is RDMA_NLDEV_ATTR_RES_CM_ID (nest).
	AttrResCMID
	// AttrResCMIDEntry is RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY (nest).
	AttrResCMIDEntry
	// AttrResPS is RDMA_NLDEV_ATTR_RES_PS (u32, enum rdma_ucm_port_space).
	AttrResPS
	// AttrResSrcAddr is RDMA_NLDEV_ATTR_RES_SRC_ADDR (__kernel_sockaddr_storage).
	AttrResSrcAddr
	// AttrResDstAddr is RDMA_NLDEV_ATTR_RES_DST_ADDR (__kernel_sockaddr_storage).
	AttrResDstAddr
	// AttrResCQ is RDMA_NLDEV_ATTR_RES_CQ (nest).
	AttrResCQ
	// AttrResCQEntry is RDMA_NLDEV_ATTR_RES_CQ_ENTRY (nest).
	AttrResCQEntry
	// AttrResCQE is RDMA_NLDEV_ATTR_RES_CQE (u32).
	AttrResCQE
	// AttrResUseCnt is RDMA_NLDEV_ATTR_RES_USECNT (u64).
	AttrResUseCnt
	// AttrResPollCtx is RDMA_NLDEV_ATTR_RES_POLL_CTX (u8, kernel CQs).
	AttrResPollCtx
	// AttrResMR is RDMA_NLDEV_ATTR_RES_MR (nest).
	AttrResMR
	// AttrResMREntry is RDMA_NLDEV_ATTR_RES_MR_ENTRY (nest).
	AttrResMREntry
	// AttrResRKey is RDMA_NLDEV_ATTR_RES_RKEY (u32, CAP_NET_ADMIN).
	AttrResRKey
	// AttrResLKey is RDMA_NLDEV_ATTR_RES_LKEY (u32, CAP_NET_ADMIN).
	AttrResLKey
	// AttrResIOVA is RDMA_NLDEV_ATTR_RES_IOVA (u64).
	AttrResIOVA
	// AttrResMRLen is RDMA_NLDEV_ATTR_RES_MRLEN (u64).
	AttrResMRLen
	// AttrResPD is RDMA_NLDEV_ATTR_RES_PD (nest).
	AttrResPD
	// AttrResPDEntry is RDMA_NLDEV_ATTR_RES_PD_ENTRY (nest).
	AttrResPDEntry
	// AttrResLocalDMALKey is RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY (u32).
	AttrResLocalDMALKey
	// AttrResUnsafeGlobalRKey is RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY (u32).
	AttrResUnsafeGlobalRKey
	// AttrNdevIndex is RDMA_NLDEV_ATTR_NDEV_INDEX (u32).
	AttrNdevIndex
	// AttrNdevName is RDMA_NLDEV_ATTR_NDEV_NAME (string).
	AttrNdevName
	// AttrDriver is RDMA_NLDEV_ATTR_DRIVER (nest of key/[print type]/value).
	AttrDriver
	// AttrDriverEntry is RDMA_NLDEV_ATTR_DRIVER_ENTRY (nest, unused by 6.1).
	AttrDriverEntry
	// AttrDriverString is RDMA_NLDEV_ATTR_DRIVER_STRING (string).
	AttrDriverString
	// AttrDriverPrintType is RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE (u8).
	AttrDriverPrintType
	// AttrDriverS32 is RDMA_NLDEV_ATTR_DRIVER_S32 (s32).
	AttrDriverS32
	// AttrDriverU32 is RDMA_NLDEV_ATTR_DRIVER_U32 (u32).
	AttrDriverU32
	// AttrDriverS64 is RDMA_NLDEV_ATTR_DRIVER_S64 (s64).
	AttrDriverS64
	// AttrDriverU64 is RDMA_NLDEV_ATTR_DRIVER_U64 (u64).
	AttrDriverU64
	// AttrResPDN is RDMA_NLDEV_ATTR_RES_PDN (u32).
	AttrResPDN
	// AttrResCQN is RDMA_NLDEV_ATTR_RES_CQN (u32).
	AttrResCQN
	// AttrResMRN is RDMA_NLDEV_ATTR_RES_MRN (u32).
	AttrResMRN
	// AttrResCMIDN is RDMA_NLDEV_ATTR_RES_CM_IDN (u32).
	AttrResCMIDN
	// AttrResCtxN is RDMA_NLDEV_ATTR_RES_CTXN (u32).
	AttrResCtxN
	// AttrLinkType is RDMA_NLDEV_ATTR_LINK_TYPE (string, "rxe", "siw").
	AttrLinkType
	// AttrSysNetnsMode is RDMA_NLDEV_SYS_ATTR_NETNS_MODE (u8).
	AttrSysNetnsMode
	// AttrDevProtocol is RDMA_NLDEV_ATTR_DEV_PROTOCOL (string).
	AttrDevProtocol
	// AttrNetNSFD is RDMA_NLDEV_NET_NS_FD (u32).
	AttrNetNSFD
	// AttrChardevType is RDMA_NLDEV_ATTR_CHARDEV_TYPE (string).
	AttrChardevType
	// AttrChardevName is RDMA_NLDEV_ATTR_CHARDEV_NAME (string).
	AttrChardevName
	// AttrChardevABI is RDMA_NLDEV_ATTR_CHARDEV_ABI (u64).
	AttrChardevABI
	// AttrChardev is RDMA_NLDEV_ATTR_CHARDEV (u64 dev_t).
	AttrChardev
	// AttrUverbsDriverID is RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID (u64).
	AttrUverbsDriverID
	// AttrStatMode is RDMA_NLDEV_ATTR_STAT_MODE (u32).
	AttrStatMode
	// AttrStatRes is RDMA_NLDEV_ATTR_STAT_RES (u32).
	AttrStatRes
	// AttrStatAutoModeMask is RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK (u32).
	AttrStatAutoModeMask
	// AttrStatCounter is RDMA_NLDEV_ATTR_STAT_COUNTER (nest).
	AttrStatCounter
	// AttrStatCounterEntry is RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY (nest).
	AttrStatCounterEntry
	// AttrStatCounterID is RDMA_NLDEV_ATTR_STAT_COUNTER_ID (u32).
	AttrStatCounterID
	// AttrStatHWCounters is RDMA_NLDEV_ATTR_STAT_HWCOUNTERS (nest).
	AttrStatHWCounters
	// AttrStatHWCounterEntry is RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY (nest).
	AttrStatHWCounterEntry
	// AttrStatHWCounterEntryName is RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME (string).
	AttrStatHWCounterEntryName
	// AttrStatHWCounterEntryValue is RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE (u64).
	AttrStatHWCounterEntryValue
	// AttrDevDIM is RDMA_NLDEV_ATTR_DEV_DIM (u8, adaptive moderation).
	AttrDevDIM
	// AttrResRaw is RDMA_NLDEV_ATTR_RES_RAW (binary).
	AttrResRaw
	// AttrResCtx is RDMA_NLDEV_ATTR_RES_CTX (nest).
	AttrResCtx
	// AttrResCtxEntry is RDMA_NLDEV_ATTR_RES_CTX_ENTRY (nest).
	AttrResCtxEntry
	// AttrResSRQ is RDMA_NLDEV_ATTR_RES_SRQ (nest).
	AttrResSRQ
	// AttrResSRQEntry is RDMA_NLDEV_ATTR_RES_SRQ_ENTRY (nest).
	AttrResSRQEntry
	// AttrResSRQN is RDMA_NLDEV_ATTR_RES_SRQN (u32).
	AttrResSRQN
	// AttrMinRange is RDMA_NLDEV_ATTR_MIN_RANGE (u32).
	AttrMinRange
	// AttrMaxRange is RDMA_NLDEV_ATTR_MAX_RANGE (u32).
	AttrMaxRange
	// AttrSysCopyOnFork is RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK (u8).
	AttrSysCopyOnFork
	// AttrStatHWCounterIndex is RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX (u32).
	AttrStatHWCounterIndex
	// AttrStatHWCounterDynamic is RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC (u8).
	AttrStatHWCounterDynamic
	// AttrSysPrivilegedQKeyMode is RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE
	// (u8, kernel 6.5 and later).
	AttrSysPrivilegedQKeyMode
	// AttrDriverDetails is RDMA_NLDEV_ATTR_DRIVER_DETAILS (u8, kernel 6.9
	// and later; older kernels ignore it).
	AttrDriverDetails
	// AttrResSubtype is RDMA_NLDEV_ATTR_RES_SUBTYPE (string, driver QPs).
	AttrResSubtype
	// AttrDevType is RDMA_NLDEV_ATTR_DEV_TYPE (u8).
	AttrDevType
	// AttrParentName is RDMA_NLDEV_ATTR_PARENT_NAME (string).
	AttrParentName
	// AttrNameAssignType is RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE (u8).
	AttrNameAssignType
)

// driverPrintHex is RDMA_NLDEV_PRINT_TYPE_HEX of enum
// rdma_nldev_print_type: print the next driver value in hex.
const driverPrintHex = 1
