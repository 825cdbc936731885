package rdma

import (
	"fmt"
	"strings"
)

// WROpcode is enum ibv_wr_opcode (ibv_post_send(3)).
type WROpcode int

// Send work request opcodes, values as in verbs.h.
const (
	WRRDMAWrite         WROpcode = 0
	WRRDMAWriteWithImm  WROpcode = 1
	WRSend              WROpcode = 2
	WRSendWithImm       WROpcode = 3
	WRRDMARead          WROpcode = 4
	WRAtomicCmpAndSwp   WROpcode = 5
	WRAtomicFetchAndAdd WROpcode = 6
	WRLocalInv          WROpcode = 7
	WRBindMW            WROpcode = 8
	WRSendWithInv       WROpcode = 9
	WRTSO               WROpcode = 10
)

var wrOpcodeNames = map[WROpcode]string{
	WRRDMAWrite: "RDMA_WRITE", WRRDMAWriteWithImm: "RDMA_WRITE_WITH_IMM", WRSend: "SEND",
	WRSendWithImm: "SEND_WITH_IMM", WRRDMARead: "RDMA_READ", WRAtomicCmpAndSwp: "ATOMIC_CMP_AND_SWP",
	WRAtomicFetchAndAdd: "ATOMIC_FETCH_AND_ADD", WRLocalInv: "LOCAL_INV", WRBindMW: "BIND_MW",
	WRSendWithInv: "SEND_WITH_INV", WRTSO: "TSO",
}

// String is the opcode's name without IBV_WR_ (RDMA_WRITE).
func (o WROpcode) String() string {
	if n, ok := wrOpcodeNames[o]; ok {
		return n
	}
	return Unknown(int(o))
}

// ParseWROpcode reads an opcode name ("send", "RDMA_WRITE",
// "IBV_WR_RDMA_READ"). The names are those of enum ibv_wr_opcode.
func ParseWROpcode(s string) (WROpcode, bool) {
	s = strings.TrimPrefix(strings.ToUpper(s), "IBV_WR_")
	for o, n := range wrOpcodeNames {
		if n == s {
			return o, true
		}
	}
	return 0, false
}

// SendFlags is enum ibv_send_flags (ibv_post_send(3)).
type SendFlags uint32

// Send flags, values as in verbs.h.
const (
	SendFence     SendFlags = 1 << 0
	SendSignaled  SendFlags = 1 << 1
	SendSolicited SendFlags = 1 << 2
	SendInline    SendFlags = 1 << 3
	SendIPCsum    SendFlags = 1 << 4
)

// String joins the flags' names with | (SIGNALED|INLINE), or "0".
func (f SendFlags) String() string {
	return flagNames(uint32(f), []string{"FENCE", "SIGNALED", "SOLICITED", "INLINE", "IP_CSUM"})
}

// WCStatus is enum ibv_wc_status (ibv_poll_cq(3)).
type WCStatus int

// Completion statuses, values as in verbs.h.
const (
	WCSuccess          WCStatus = 0
	WCLocLenErr        WCStatus = 1
	WCLocQPOpErr       WCStatus = 2
	WCLocEECOpErr      WCStatus = 3
	WCLocProtErr       WCStatus = 4
	WCWRFlushErr       WCStatus = 5
	WCMWBindErr        WCStatus = 6
	WCBadRespErr       WCStatus = 7
	WCLocAccessErr     WCStatus = 8
	WCRemInvReqErr     WCStatus = 9
	WCRemAccessErr     WCStatus = 10
	WCRemOpErr         WCStatus = 11
	WCRetryExcErr      WCStatus = 12
	WCRNRRetryExcErr   WCStatus = 13
	WCLocRDDViolErr    WCStatus = 14
	WCRemInvRdReqErr   WCStatus = 15
	WCRemAbortErr      WCStatus = 16
	WCInvEECNErr       WCStatus = 17
	WCInvEECStateErr   WCStatus = 18
	WCFatalErr         WCStatus = 19
	WCRespTimeoutErr   WCStatus = 20
	WCGeneralErr       WCStatus = 21
	WCTMErr            WCStatus = 22
	WCTMRndvIncomplete WCStatus = 23
)

var wcStatusNames = []string{
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR", "LOC_PROT_ERR", "WR_FLUSH_ERR",
	"MW_BIND_ERR", "BAD_RESP_ERR", "LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR", "REM_INV_RD_REQ_ERR", "REM_ABORT_ERR",
	"INV_EECN_ERR", "INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR", "TM_ERR",
	"TM_RNDV_INCOMPLETE",
}

// String is the status's name without IBV_WC_ (REM_ACCESS_ERR), as ibv_wc_status_str(3) names them.
func (s WCStatus) String() string {
	return nameIn(wcStatusNames, int(s))
}

// ParseWCStatus reads a status name ("REM_ACCESS_ERR",
// "IBV_WC_WR_FLUSH_ERR"). The names are those of enum ibv_wc_status.
func ParseWCStatus(s string) (WCStatus, bool) {
	return parseName[WCStatus](s, "IBV_WC_", wcStatusNames)
}

// WCOpcode is enum ibv_wc_opcode (ibv_poll_cq(3)): what completed.
// Receive completions have bit 7 (WCRecv) set.
type WCOpcode int

// Completion opcodes, values as in verbs.h.
const (
	WCSend            WCOpcode = 0
	WCRDMAWrite       WCOpcode = 1
	WCRDMARead        WCOpcode = 2
	WCCompSwap        WCOpcode = 3
	WCFetchAdd        WCOpcode = 4
	WCBindMW          WCOpcode = 5
	WCLocalInv        WCOpcode = 6
	WCTSO             WCOpcode = 7
	WCRecv            WCOpcode = 1 << 7
	WCRecvRDMAWithImm WCOpcode = WCRecv + 1
)

// String is the completion opcode's name without IBV_WC_ (RECV).
func (o WCOpcode) String() string {
	names := []string{"SEND", "RDMA_WRITE", "RDMA_READ", "COMP_SWAP", "FETCH_ADD", "BIND_MW", "LOCAL_INV", "TSO"}
	v := int(o)
	if o >= WCRecv {
		names, v = []string{"RECV", "RECV_RDMA_WITH_IMM"}, int(o-WCRecv)
	}
	return nameOr(names, v, Unknown(int(o)))
}

// WCFlags is enum ibv_wc_flags (ibv_poll_cq(3)).
type WCFlags uint32

// Completion flags, values as in verbs.h.
const (
	WCWithGRH  WCFlags = 1 << 0 // a UD receive buffer starts with the 40-byte GRH
	WCWithImm  WCFlags = 1 << 1 // ImmData is valid
	WCIPCsumOK WCFlags = 1 << 2
	WCWithInv  WCFlags = 1 << 3
)

// String joins the flags' names with |, or "0".
func (f WCFlags) String() string {
	return flagNames(uint32(f), []string{"GRH", "WITH_IMM", "IP_CSUM_OK", "WITH_INV"})
}

// EventType is enum ibv_event_type (ibv_get_async_event(3)).
type EventType int

// Async event types, values as in verbs.h.
const (
	EventCQErr            EventType = 0
	EventQPFatal          EventType = 1
	EventQPReqErr         EventType = 2
	EventQPAccessErr      EventType = 3
	EventCommEst          EventType = 4
	EventSQDrained        EventType = 5
	EventPathMig          EventType = 6
	EventPathMigErr       EventType = 7
	EventDeviceFatal      EventType = 8
	EventPortActive       EventType = 9
	EventPortErr          EventType = 10
	EventLIDChange        EventType = 11
	EventPKeyChange       EventType = 12
	EventSMChange         EventType = 13
	EventSRQErr           EventType = 14
	EventSRQLimitReached  EventType = 15
	EventQPLastWQEReached EventType = 16
	EventClientReregister EventType = 17
	EventGIDChange        EventType = 18
	EventWQFatal          EventType = 19
)

var eventNames = []string{
	"CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST", "SQ_DRAINED", "PATH_MIG",
	"PATH_MIG_ERR", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE",
	"SM_CHANGE", "SRQ_ERR", "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED", "CLIENT_REREGISTER",
	"GID_CHANGE", "WQ_FATAL",
}

// String is the event's name without IBV_EVENT_ (QP_FATAL), as ibv_event_type_str(3) names them.
func (e EventType) String() string {
	return nameIn(eventNames, int(e))
}

// ParseEventType reads an event name ("QP_FATAL", "IBV_EVENT_PORT_ERR"). The
// names are those of enum ibv_event_type.
func ParseEventType(s string) (EventType, bool) {
	return parseName[EventType](s, "IBV_EVENT_", eventNames)
}

// flagNames joins the names of set bits (bit i is names[i]); unknown bits
// come last as hex.
func flagNames(v uint32, names []string) string {
	if v == 0 {
		return "0"
	}
	var out []string
	for i, n := range names {
		if v&(1<<i) != 0 {
			out = append(out, n)
			v &^= 1 << i
		}
	}
	if v != 0 {
		out = append(out, fmt.Sprintf("0x%x", v))
	}
	return strings.Join(out, "|")
}
