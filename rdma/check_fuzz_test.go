package rdma

import (
	"syscall"
	"testing"
)

// FuzzCheck feeds Check random states, types, masks and attribute values,
// with and without the rxe environment: it must never panic, and its
// verdict must agree with the table (ModifyIsOK) and with itself.
func FuzzCheck(f *testing.F) {
	f.Add(int8(1), int8(2), uint8(2), uint32(0x1f0181), uint32(1), uint8(1), uint8(1), true, uint8(3), uint32(0x12), uint8(14), true)
	f.Add(int8(0), int8(3), uint8(4), uint32(1), uint32(0), uint8(0), uint8(0), false, uint8(0), uint32(0), uint8(0), false)
	f.Add(int8(4), int8(4), uint8(3), uint32(0x80), uint32(5), uint8(2), uint8(9), true, uint8(6), uint32(1<<24), uint8(40), true)
	f.Add(int8(2), int8(3), uint8(10), uint32(0x2000003), uint32(5), uint8(1), uint8(1), true, uint8(5), uint32(7), uint8(31), true)
	f.Fuzz(func(t *testing.T, cur, next int8, typ uint8, mask, curState uint32, port, sgid uint8, global bool, mtu uint8, qpn uint32, timeout uint8, withEnv bool) {
		a := &QPAttr{CurState: QPState(curState % 9), Port: port, PathMTU: MTU(mtu), DestQPN: qpn, Timeout: timeout, QKey: qpn,
			RQPSN: qpn, SQPSN: qpn, MaxRdAtomic: timeout, AltPort: port, PKeyIndex: uint16(sgid),
			AH: AHAttr{IsGlobal: global, PortNum: port, GRH: GlobalRoute{SGIDIndex: sgid, DGID: GID{15: sgid}}}}
		var env *CheckEnv
		if withEnv {
			env = rxeEnv()
		}
		m := QPAttrMask(mask)
		v := Check(QPState(cur), QPState(next), QPType(typ), m, a, env)
		if v.Known && !v.TableOK && v.Errno == 0 {
			t.Fatalf("table refuses but errno 0:\n%s", v.Explain())
		}
		if v.Errno != 0 && v.Decisive() == nil {
			t.Fatal("errno without a decisive finding")
		}
		if v.Known && validState(v.TableFrom) && validState(v.TableTo) {
			if ok := ModifyIsOK(v.TableFrom, v.TableTo, v.Type, v.KernelMask); ok != v.TableOK {
				t.Fatalf("TableOK %v, ModifyIsOK %v", v.TableOK, ok)
			}
		}
		if v.Errno == 0 && v.Known && m&^(maskStandard|AttrRateLimit) != 0 {
			t.Fatalf("bits beyond the standard mask %s accepted", m)
		}
		for _, f := range v.Findings {
			if f.Severity == SevError && f.Errno != syscall.EINVAL && f.Errno != syscall.EOPNOTSUPP && f.Errno != syscall.ENODATA && f.Errno != syscall.EPERM {
				t.Fatalf("unexpected errno %v in %+v", f.Errno, f)
			}
		}
		_ = v.Explain()
	})
}

// FuzzSetAttrField feeds the shell's attribute parser random names and
// values: never a panic, and on error nothing changes.
func FuzzSetAttrField(f *testing.F) {
	for _, s := range [][2]string{{"dest_qpn", "0x12"}, {"dgid", "::ffff:10.0.0.1"}, {"access_flags", "remote_write|remote_read"},
		{"path_mtu", "1024"}, {"cur_state", "rts"}, {"is_global", "1"}, {"path_mig_state", "armed"}, {"x", "y"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		var a QPAttr
		var m QPAttrMask
		if err := SetAttrField(&a, &m, name, value); err != nil {
			if m != 0 || a != (QPAttr{}) {
				t.Fatalf("failed SetAttrField(%q, %q) changed the attr: mask %s", name, value, m)
			}
			return
		}
		if m == 0 {
			t.Fatalf("SetAttrField(%q, %q) set no mask bit", name, value)
		}
		if _, err := AttrFieldValue(&a, name); err != nil {
			t.Fatal(err)
		}
	})
}
