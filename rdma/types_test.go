package rdma

import (
	"strings"
	"testing"
)

func TestNamesRoundTrip(t *testing.T) {
	for s := QPStateReset; s <= QPStateErr; s++ {
		if got, ok := ParseQPState(s.String()); !ok || got != s {
			t.Errorf("ParseQPState(%q) = %v, %v", s, got, ok)
		}
	}
	for _, typ := range []QPType{QPTypeRC, QPTypeUC, QPTypeUD, QPTypeRawPacket, QPTypeXRCSend, QPTypeXRCRecv} {
		if got, ok := ParseQPType(typ.String()); !ok || got != typ {
			t.Errorf("ParseQPType(%q) = %v, %v", typ, got, ok)
		}
	}
	for _, b := range qpMaskNames {
		if got, ok := ParseQPAttrMaskBit("ibv_qp_" + b.name); !ok || got != b.bit {
			t.Errorf("ParseQPAttrMaskBit(%q) = %v, %v", b.name, got, ok)
		}
	}
	for o := WRRDMAWrite; o <= WRTSO; o++ {
		if got, ok := ParseWROpcode(o.String()); !ok || got != o {
			t.Errorf("ParseWROpcode(%q) = %v, %v", o, got, ok)
		}
	}
	for s := WCSuccess; s <= WCTMRndvIncomplete; s++ {
		if got, ok := ParseWCStatus(s.String()); !ok || got != s {
			t.Errorf("ParseWCStatus(%q) = %v, %v", s, got, ok)
		}
	}
	for e := EventCQErr; e <= EventWQFatal; e++ {
		if got, ok := ParseEventType(e.String()); !ok || got != e {
			t.Errorf("ParseEventType(%q) = %v, %v", e, got, ok)
		}
	}
}

func TestFlagStrings(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{(AttrState | AttrPKeyIndex | AttrPort | AttrAccessFlags).String(), "STATE|ACCESS_FLAGS|PKEY_INDEX|PORT"},
		{(AttrDestQPN | 1<<30).String(), "DEST_QPN|0x40000000"},
		{QPAttrMask(0).String(), "0"},
		{(AccessLocalWrite | AccessRemoteWrite).String(), "LOCAL_WRITE|REMOTE_WRITE"},
		{(SendSignaled | SendInline).String(), "SIGNALED|INLINE"},
		{(WCWithImm).String(), "WITH_IMM"},
		{WCStatus(99).String(), "UNKNOWN(99)"},
		{QPState(-1).String(), "UNKNOWN(-1)"},
		{WCRecvRDMAWithImm.String(), "RECV_RDMA_WITH_IMM"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if m, ok := ParseQPAttrMaskBit("mtu"); !ok || m != AttrPathMTU {
		t.Error("the seed's IBV_QP_MTU spelling should read as PATH_MTU")
	}
	if a, ok := ParseAccessFlag("remote_atomic"); !ok || a != AccessRemoteAtomic {
		t.Errorf("ParseAccessFlag: %v %v", a, ok)
	}
}

func TestQPStateFailed(t *testing.T) {
	var failed []string
	for _, s := range QPStates {
		if s.Failed() {
			failed = append(failed, s.String())
		}
	}
	if got := strings.Join(failed, " "); got != "SQE ERR" {
		t.Errorf("failed states: %s, want SQE ERR", got)
	}
}
