package verbs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpcodeTable(t *testing.T) {
	for _, tc := range []struct {
		typ  QPType
		want []WROpcode
	}{
		{QPTRC, []WROpcode{WRRDMAWrite, WRRDMAWriteWithImm, WRSend, WRSendWithImm, WRRDMARead, WRAtomicCmpAndSwp, WRAtomicFetchAndAdd, WRLocalInv, WRBindMW, WRSendWithInv}},
		{QPTUC, []WROpcode{WRRDMAWrite, WRRDMAWriteWithImm, WRSend, WRSendWithImm, WRLocalInv, WRBindMW, WRSendWithInv}},
		{QPTUD, []WROpcode{WRSend, WRSendWithImm, WRTSO}},
		{QPTRawPacket, []WROpcode{WRSend, WRTSO}},
		{QPTXRCRecv, nil},
	} {
		if got := OpcodesFor(tc.typ); !cmp.Equal(got, tc.want) {
			t.Errorf("OpcodesFor(%s) = %v, want %v", tc.typ, got, tc.want)
		}
	}
	if OpcodeAllowed(QPTUD, WRRDMAWrite) || !OpcodeAllowed(QPTRC, WRAtomicFetchAndAdd) {
		t.Error("OpcodeAllowed")
	}
}

func TestCheckSend(t *testing.T) {
	rules := func(fs []Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rule)
		}
		return out
	}
	for _, tc := range []struct {
		typ    QPType
		op     WROpcode
		flags  SendFlags
		sigAll bool
		driver string
		want   []string
	}{
		{QPTRC, WRSend, SendSignaled, false, "rxe", nil},
		{QPTUD, WRRDMAWrite, SendSignaled, false, "", []string{"send.opcode"}},
		{QPTUC, WRLocalInv, SendSignaled, false, "rxe", []string{"rxe.opcode"}},
		{QPTUC, WRLocalInv, SendSignaled, false, "", nil},
		{QPTUD, WRSend, SendFence | SendSignaled, false, "", []string{"send.flag"}},
		{QPTRC, WRRDMARead, SendInline | SendSolicited, true, "", []string{"send.flag", "send.flag"}},
		{QPTRC, WRSend, SendSignaled, true, "", []string{"send.signaled"}},
		{QPTRC, WRRDMAWrite, 0, false, "", []string{"send.unsignaled"}},
		{QPTRC, WROpcode(99), SendSignaled, false, "", []string{"send.opcode"}},
	} {
		if got := rules(CheckSend(tc.typ, tc.op, tc.flags, tc.sigAll, tc.driver)); !cmp.Equal(got, tc.want) {
			t.Errorf("CheckSend(%s, %s, %s): %v, want %v", tc.typ, tc.op, tc.flags, got, tc.want)
		}
	}
}
