package rdma

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOpcodeTable(t *testing.T) {
	for _, tc := range []struct {
		typ  QPType
		want []WROpcode
	}{
		{QPTypeRC, []WROpcode{WRRDMAWrite, WRRDMAWriteWithImm, WRSend, WRSendWithImm, WRRDMARead, WRAtomicCmpAndSwp, WRAtomicFetchAndAdd, WRLocalInv, WRBindMW, WRSendWithInv}},
		{QPTypeUC, []WROpcode{WRRDMAWrite, WRRDMAWriteWithImm, WRSend, WRSendWithImm, WRLocalInv, WRBindMW, WRSendWithInv}},
		{QPTypeUD, []WROpcode{WRSend, WRSendWithImm, WRTSO}},
		{QPTypeRawPacket, []WROpcode{WRSend, WRTSO}},
		{QPTypeXRCRecv, nil},
	} {
		if got := OpcodesFor(tc.typ); !cmp.Equal(got, tc.want) {
			t.Errorf("OpcodesFor(%s) = %v, want %v", tc.typ, got, tc.want)
		}
	}
	if OpcodeAllowed(QPTypeUD, WRRDMAWrite) || !OpcodeAllowed(QPTypeRC, WRAtomicFetchAndAdd) {
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
		{QPTypeRC, WRSend, SendSignaled, false, "rxe", nil},
		{QPTypeUD, WRRDMAWrite, SendSignaled, false, "", []string{"send.opcode"}},
		{QPTypeUC, WRLocalInv, SendSignaled, false, "rxe", []string{"rxe.opcode"}},
		{QPTypeUC, WRLocalInv, SendSignaled, false, "", nil},
		{QPTypeUD, WRSend, SendFence | SendSignaled, false, "", []string{"send.flag"}},
		{QPTypeRC, WRRDMARead, SendInline | SendSolicited, true, "", []string{"send.flag", "send.flag"}},
		{QPTypeRC, WRSend, SendSignaled, true, "", []string{"send.signaled"}},
		{QPTypeRC, WRRDMAWrite, 0, false, "", []string{"send.unsignaled"}},
		{QPTypeRC, WROpcode(99), SendSignaled, false, "", []string{"send.opcode"}},
	} {
		if got := rules(CheckSend(tc.typ, tc.op, tc.flags, tc.sigAll, tc.driver)); !cmp.Equal(got, tc.want) {
			t.Errorf("CheckSend(%s, %s, %s): %v, want %v", tc.typ, tc.op, tc.flags, got, tc.want)
		}
	}
}
