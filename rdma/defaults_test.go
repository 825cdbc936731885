package rdma

import (
	"fmt"
	"strings"
	"testing"
)

// pingpongMasks are the masks rdma-core's examples pass at each step
// (libibverbs/examples/rc_pingpong.c, uc_pingpong.c, ud_pingpong.c).
var pingpongMasks = map[QPType][3]QPAttrMask{
	QPTypeRC: {
		AttrState | AttrPKeyIndex | AttrPort | AttrAccessFlags,
		AttrState | AttrAV | AttrPathMTU | AttrDestQPN | AttrRQPSN | AttrMaxDestRdAtomic | AttrMinRNRTimer,
		AttrState | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrSQPSN | AttrMaxQPRdAtomic,
	},
	QPTypeUC: {
		AttrState | AttrPKeyIndex | AttrPort | AttrAccessFlags,
		AttrState | AttrAV | AttrPathMTU | AttrDestQPN | AttrRQPSN,
		AttrState | AttrSQPSN,
	},
	QPTypeUD: {
		AttrState | AttrPKeyIndex | AttrPort | AttrQKey,
		AttrState,
		AttrState | AttrSQPSN,
	},
}

func TestDefaultStepsArePingpongs(t *testing.T) {
	for typ, masks := range pingpongMasks {
		s := QPStateReset
		for i := 0; i < 3; i++ {
			step, err := DefaultStep(s, typ, labConn())
			if err != nil {
				t.Fatal(err)
			}
			if step.Mask != masks[i] {
				t.Errorf("%s %s→%s: mask %s, the pingpong example uses %s", typ, step.From, step.To, step.Mask, masks[i])
			}
			if v := step.Check(rxeEnv()); !v.OK() || len(v.Warnings()) > 0 {
				t.Errorf("%s %s→%s: the defaults are not clean:\n%s", typ, step.From, step.To, v.Explain())
			}
			s = step.To
		}
		if _, err := DefaultStep(s, typ, labConn()); err == nil || !strings.Contains(err.Error(), "ready") {
			t.Errorf("%s: DefaultStep from RTS: %v", typ, err)
		}
	}
	rtr, _ := DefaultsFor(QPStateInit, QPStateRTR, QPTypeRC, labConn())
	a := rtr.Attr
	if a.PathMTU != MTU1024 || a.MaxDestRdAtomic != 1 || a.MinRNRTimer != 12 || a.DestQPN != 0x12 || a.RQPSN != 0x4321 ||
		!a.AH.IsGlobal || a.AH.GRH.HopLimit != 1 || a.AH.GRH.SGIDIndex != 1 || a.AH.PortNum != 1 {
		t.Errorf("RC RTR defaults: %+v", a)
	}
	rts, _ := DefaultsFor(QPStateRTR, QPStateRTS, QPTypeRC, labConn())
	if b := rts.Attr; b.Timeout != 14 || b.RetryCnt != 7 || b.RNRRetry != 7 || b.MaxRdAtomic != 1 || b.SQPSN != 0x1234 {
		t.Errorf("RC RTS defaults: %+v", b)
	}
	if _, err := DefaultsFor(QPStateReset, QPStateRTS, QPTypeRC, labConn()); err == nil {
		t.Error("RESET→RTS has no defaults: it is not a transition")
	}
}

func TestStepOverrides(t *testing.T) {
	s, err := DefaultsFor(QPStateInit, QPStateRTR, QPTypeRC, labConn())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"dest_qpn", "0x99"}, {"path_mtu", "2048"}, {"DGID", "10.0.0.2"}, {"access", "remote_read|remote_write"}} {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s): %v", kv[0], err)
		}
	}
	if s.Attr.DestQPN != 0x99 || s.Attr.PathMTU != MTU2048 || s.Attr.AH.GRH.DGID.String() != "::ffff:10.0.0.2" ||
		s.Attr.AccessFlags != AccessRemoteRead|AccessRemoteWrite || s.Mask&AttrAccessFlags == 0 {
		t.Errorf("after overrides: %+v mask %s", s.Attr, s.Mask)
	}
	for _, bad := range [][2]string{{"path_mtu", "1500"}, {"timeout", "-1"}, {"sl", "16"}, {"nope", "1"}, {"state", "rts"}, {"access", "remote_everything"}, {"dgid", "zz"}} {
		if err := s.Set(bad[0], bad[1]); err == nil {
			t.Errorf("Set(%s=%s) accepted", bad[0], bad[1])
		}
	}
	if err := s.Clear("min_rnr_timer"); err != nil || s.Mask&AttrMinRNRTimer != 0 {
		t.Errorf("Clear: %v, mask %s", err, s.Mask)
	}
	if err := s.Clear("STATE"); err == nil {
		t.Error("Clear(STATE) must be refused: the step is the state")
	}
	if v := s.Check(rxeEnv()); v.Errno == 0 || v.Decisive().Rule != "table.missing" {
		t.Errorf("without MIN_RNR_TIMER: %s", v.Explain())
	}
	var b strings.Builder
	for _, val := range s.Values() {
		fmt.Fprintf(&b, "%-18s %-28s %v %s\n", val.Name, val.Value, val.Overridden, val.Why)
	}
	golden(t, "defaults_rc_rtr_overridden", b.String())
}

// TestDefaultValuesGolden shows every default the walk of each type
// uses, with its reason: what the shell's `next` prints.
func TestDefaultValuesGolden(t *testing.T) {
	var b strings.Builder
	for _, typ := range []QPType{QPTypeRC, QPTypeUC, QPTypeUD, QPTypeRawPacket, QPTypeXRCSend, QPTypeXRCRecv} {
		for s, ok := QPStateReset, true; ok; s, ok = Next(s, typ) {
			step, err := DefaultStep(s, typ, labConn())
			if err != nil {
				break
			}
			fmt.Fprintf(&b, "%s %s→%s mask %s\n", typ, step.From, step.To, step.Mask)
			for _, v := range step.Values() {
				fmt.Fprintf(&b, "  %-18s %-28s %s\n", v.Name, v.Value, v.Why)
			}
		}
	}
	golden(t, "defaults_walks", b.String())
}

func TestSetAttrFieldNames(t *testing.T) {
	for _, name := range FieldNames() {
		var a QPAttr
		var m QPAttrMask
		v, err := AttrFieldValue(&a, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// Every field reads back what it prints (path_mtu prints
		// "invalid MTU code 0" for a zero attr, so it is set first).
		if name == "path_mtu" {
			v = "1024"
		}
		if err := SetAttrField(&a, &m, name, v); err != nil {
			t.Errorf("%s: SetAttrField(%q): %v", name, v, err)
		}
		if bit, _ := FieldBit(name); m != bit {
			t.Errorf("%s: mask %s, want %s", name, m, bit)
		}
	}
}
