package rdma

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Where ibv_devinfo and iproute2's rdma tool spell a value differently,
// both spellings come from the one enum; an unnamed value prints as
// UNKNOWN(n) in String and as iproute2's one word in IPRoute2.
func TestTwoRenderings(t *testing.T) {
	type pair struct{ Verbs, IPRoute2 string }
	for _, tc := range []struct {
		name string
		got  pair
		want pair
	}{
		{"RC", pair{QPTypeRC.String(), QPTypeRC.IPRoute2()}, pair{"RC", "RC"}},
		{"XRC initiator", pair{QPTypeXRCSend.String(), QPTypeXRCSend.IPRoute2()}, pair{"XRC_SEND", "XRC_INI"}},
		{"XRC target", pair{QPTypeXRCRecv.String(), QPTypeXRCRecv.IPRoute2()}, pair{"XRC_RECV", "XRC_TGT"}},
		{"driver QP", pair{QPTypeDriver.String(), QPTypeDriver.IPRoute2()}, pair{"DRIVER", "DRIVER"}},
		{"QP type 7", pair{QPType(7).String(), QPType(7).IPRoute2()}, pair{"UNKNOWN(7)", "UNKNOWN"}},
		{"QP state RTS", pair{QPStateRTS.String(), QPStateRTS.IPRoute2()}, pair{"RTS", "RTS"}},
		{"QP state 7", pair{QPStateUnknown.String(), QPStateUnknown.IPRoute2()}, pair{"UNKNOWN", "UNKNOWN"}},
		{"QP state 9", pair{QPState(9).String(), QPState(9).IPRoute2()}, pair{"UNKNOWN(9)", "UNKNOWN"}},
		{"port ACTIVE", pair{PortStateActive.String(), PortStateActive.IPRoute2()}, pair{"ACTIVE", "ACTIVE"}},
		{"port 6", pair{PortState(6).String(), PortState(6).IPRoute2()}, pair{"UNKNOWN(6)", "UNKNOWN"}},
		{"phys LINK_UP", pair{PhysStateLinkUp.String(), PhysStateLinkUp.IPRoute2()}, pair{"LINK_UP", "LINK_UP"}},
		{"phys 4", pair{PhysState(4).String(), PhysState(4).IPRoute2()}, pair{"PORT_CONFIGURATION_TRAINING", "ARMED"}},
		{"phys 6", pair{PhysState(6).String(), PhysState(6).IPRoute2()}, pair{"LINK_ERROR_RECOVERY", "LINK_ERROR_RECOVER"}},
		{"phys 9 (OPA)", pair{PhysState(9).String(), PhysState(9).IPRoute2()}, pair{"UNKNOWN(9)", "OPA_OFFLINE"}},
		{"phys 0", pair{PhysState(0).String(), PhysState(0).IPRoute2()}, pair{"UNKNOWN(0)", "NOP"}},
		{"node CA", pair{NodeTypeCA.String(), NodeTypeCA.IPRoute2()}, pair{"CA", "ca"}},
		{"node usNIC UDP", pair{NodeTypeUSNICUDP.String(), NodeTypeUSNICUDP.IPRoute2()}, pair{"usNIC UDP", "usnic_udp"}},
		{"node 9", pair{NodeType(9).String(), NodeType(9).IPRoute2()}, pair{"UNKNOWN(9)", "unknown"}},
		{"mig ARMED", pair{MigStateArmed.String(), MigStateArmed.IPRoute2()}, pair{"ARMED", "ARMED"}},
		{"mig 3", pair{MigState(3).String(), MigState(3).IPRoute2()}, pair{"UNKNOWN(3)", "UNKNOWN"}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// Every enum prints an unnamed value the one way.
func TestUnknownValues(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{MTU(9).String(), "UNKNOWN(9)"},
		{LinkLayer(3).String(), "UNKNOWN(3)"},
		{GIDType(5).String(), "UNKNOWN(5)"},
		{AtomicCap(4).String(), "UNKNOWN(4)"},
		{Transport(8).String(), "UNKNOWN(8)"},
		{WROpcode(42).String(), "UNKNOWN(42)"},
		{WCOpcode(9).String(), "UNKNOWN(9)"},
		{WCOpcode(200).String(), "UNKNOWN(200)"},
		{EventType(77).String(), "UNKNOWN(77)"},
		{Stage(0).String(), "UNKNOWN(0)"},
		{Kind("xyz").Word(), "xyz"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Both spellings of a QP type parse back to it.
func TestParseQPTypeBothSpellings(t *testing.T) {
	for s, want := range map[string]QPType{"XRC_INI": QPTypeXRCSend, "xrc_send": QPTypeXRCSend,
		"XRC_TGT": QPTypeXRCRecv, "IBV_QPT_XRC_RECV": QPTypeXRCRecv, "driver": QPTypeDriver, "raw_ipv6": QPTypeRawIPv6} {
		if got, ok := ParseQPType(s); !ok || got != want {
			t.Errorf("ParseQPType(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "UNKNOWN", "XRC"} {
		if got, ok := ParseQPType(s); ok {
			t.Errorf("ParseQPType(%q) = %v, want no type", s, got)
		}
	}
}

// A port is up in ACTIVE only: ARMED has a link but passes no data.
func TestPortStateUp(t *testing.T) {
	for s := PortStateNop; s <= PortStateActiveDefer+1; s++ {
		if got, want := s.Up(), s == PortStateActive; got != want {
			t.Errorf("%s.Up() = %v, want %v", s, got, want)
		}
	}
}
