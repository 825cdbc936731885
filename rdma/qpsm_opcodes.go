package rdma

import (
	"fmt"
	"slices"
	"strings"
)

// sendOpcodeRule says which QP types may post an opcode: the table of
// rdma-core libibverbs/man/ibv_post_send.3, and what rxe really accepts
// (drivers/infiniband/sw/rxe/rxe_opcode.c rxe_wr_opcode_info, Linux 6.1;
// an opcode rxe does not accept for the type completes in error).
type sendOpcodeRule struct {
	op  WROpcode
	man []QPType
	rxe []QPType
}

var sendOpcodeRules = []sendOpcodeRule{
	{WRSend, []QPType{QPTypeUD, QPTypeUC, QPTypeRC, QPTypeXRCSend, QPTypeRawPacket}, []QPType{QPTypeRC, QPTypeUC, QPTypeUD}},
	{WRSendWithImm, []QPType{QPTypeUD, QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC, QPTypeUC, QPTypeUD}},
	{WRRDMAWrite, []QPType{QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC, QPTypeUC}},
	{WRRDMAWriteWithImm, []QPType{QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC, QPTypeUC}},
	{WRRDMARead, []QPType{QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC}},
	{WRAtomicCmpAndSwp, []QPType{QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC}},
	{WRAtomicFetchAndAdd, []QPType{QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC}},
	{WRLocalInv, []QPType{QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC}},
	{WRBindMW, []QPType{QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC, QPTypeUC}},
	{WRSendWithInv, []QPType{QPTypeUC, QPTypeRC, QPTypeXRCSend}, []QPType{QPTypeRC, QPTypeUC, QPTypeUD}},
	{WRTSO, []QPType{QPTypeUD, QPTypeRawPacket}, nil},
}

// sendFlagRule limits a send flag to some opcodes or QP types
// (ibv_post_send(3), DESCRIPTION of send_flags).
type sendFlagRule struct {
	flag    SendFlags
	opcodes []WROpcode // nil: any opcode
	types   []QPType   // nil: any type
	why     string
}

var sendFlagRules = []sendFlagRule{
	{SendFence, nil, []QPType{QPTypeRC}, "the fence orders a WR after earlier RDMA reads and atomics, which only RC has"},
	{SendSolicited, []WROpcode{WRSend, WRSendWithImm, WRSendWithInv, WRRDMAWriteWithImm}, nil,
		"the solicited bit asks the receiver for a completion event, so it goes only with operations that consume a receive"},
	{SendInline, []WROpcode{WRSend, WRSendWithImm, WRSendWithInv, WRRDMAWrite, WRRDMAWriteWithImm}, nil,
		"inline data is copied into the WQE at post time, which only makes sense for data this side sends"},
	{SendIPCsum, nil, []QPType{QPTypeUD, QPTypeRawPacket}, "checksum offload applies to IP packets the QP builds, and needs the device's IBV_DEVICE_RAW_IP_CSUM / UD_IP_CSUM capability"},
}

// OpcodeAllowed reports whether ibv_post_send(3)'s table lets a QP type
// post an opcode.
func OpcodeAllowed(typ QPType, op WROpcode) bool {
	i := slices.IndexFunc(sendOpcodeRules, func(r sendOpcodeRule) bool { return r.op == op })
	return i >= 0 && slices.Contains(sendOpcodeRules[i].man, typ)
}

// OpcodesFor lists the opcodes ibv_post_send(3) allows on a QP type, in
// verbs.h order.
func OpcodesFor(typ QPType) []WROpcode {
	var out []WROpcode
	for _, r := range sendOpcodeRules {
		if slices.Contains(r.man, typ) {
			out = append(out, r.op)
		}
	}
	slices.Sort(out)
	return out
}

// CheckSend checks a send work request's opcode and flags against the QP
// type (ibv_post_send(3)) and, when driver is "rxe", against what rxe
// accepts (rxe_opcode.c). sigAll is the QP's sq_sig_all. Errors are
// opcodes or flags the QP type does not have; notes explain the rest.
func CheckSend(typ QPType, op WROpcode, flags SendFlags, sigAll bool, driver string) []Finding {
	const srcMan = "rdma-core libibverbs/man/ibv_post_send.3"
	var out []Finding
	i := slices.IndexFunc(sendOpcodeRules, func(r sendOpcodeRule) bool { return r.op == op })
	switch {
	case i < 0:
		out = append(out, Finding{Rule: "send.opcode", Stage: StageLibrary, Severity: SevError,
			Problem: fmt.Sprintf("%s is not a send opcode", op), Fix: "use one of " + opcodeList(OpcodesFor(typ)), Source: srcMan})
	case !slices.Contains(sendOpcodeRules[i].man, typ):
		out = append(out, Finding{Rule: "send.opcode", Stage: StageLibrary, Severity: SevError,
			Problem: fmt.Sprintf("a %s QP cannot post %s", typ, op),
			Why:     opcodeWhy(typ),
			Fix:     "a " + typ.String() + " QP posts " + opcodeList(OpcodesFor(typ)), Source: srcMan})
	// rxe differs from the man page: UC has no LOCAL_INV, UD has
	// SEND_WITH_INV, and TSO is not implemented.
	case driver == "rxe" && !slices.Contains(sendOpcodeRules[i].rxe, typ):
		out = append(out, Finding{Rule: "rxe.opcode", Stage: StageDriver, Severity: SevError,
			Problem: fmt.Sprintf("rxe does not implement %s on %s QPs", op, typ),
			Why:     "rxe's table of work-request opcodes has no entry for this type; the WR completes with an error",
			Source:  "drivers/infiniband/sw/rxe/rxe_opcode.c rxe_wr_opcode_info"})
	}
	// A flag passes when its opcode list and type list (nil: any) both
	// contain this WR's.
	for _, r := range sendFlagRules {
		if flags&r.flag == 0 || (r.opcodes == nil || slices.Contains(r.opcodes, op)) && (r.types == nil || slices.Contains(r.types, typ)) {
			continue
		}
		out = append(out, Finding{Rule: "send.flag", Stage: StageLibrary, Severity: SevError,
			Problem: fmt.Sprintf("send flag %s does not apply to %s on a %s QP", r.flag, op, typ), Why: r.why,
			Fix: "leave " + strings.ToLower(r.flag.String()) + " out", Source: srcMan})
	}
	if flags&SendSignaled != 0 && sigAll {
		out = append(out, Finding{Rule: "send.signaled", Stage: StageLibrary, Severity: SevNote,
			Problem: "SIGNALED changes nothing: the QP was created with sq_sig_all, so every send completes",
			Source:  srcMan})
	}
	if flags&SendSignaled == 0 && !sigAll {
		out = append(out, Finding{Rule: "send.unsignaled", Stage: StageLibrary, Severity: SevNote,
			Problem: "this WR is unsignaled: it makes no completion unless it fails",
			Why:     "without SIGNALED (and without sq_sig_all) only errors complete; post a signaled WR now and then so the send queue's slots are freed",
			Source:  srcMan})
	}
	return out
}

// opcodeList joins opcode names for a fix text.
func opcodeList(ops []WROpcode) string {
	names := make([]string, len(ops))
	for i, o := range ops {
		names[i] = o.String()
	}
	return strings.Join(names, ", ")
}

// opcodeWhy says why a transport lacks an opcode.
func opcodeWhy(typ QPType) string {
	switch typ {
	case QPTypeUD:
		return "UD is datagrams: sends only, no remote memory access"
	case QPTypeUC:
		return "UC is unreliable: no responses come back, so no reads or atomics"
	case QPTypeRawPacket:
		return "a RAW_PACKET QP sends whole Ethernet frames"
	}
	return "ibv_post_send(3) lists the opcodes of each QP type"
}
