package rdma

import (
	"net"
	"strings"
	"syscall"
	"testing"
)

// rxeEnv is the lab's rxe0 as ibv_devinfo -v shows it (Debian 6.1,
// veth0 with MTU 1500): one port, RoCE v2 GIDs at 0 (link-local) and 1
// (10.0.0.1), max_mtu 4096, active_mtu 1024.
func rxeEnv() *CheckEnv {
	var ll, v4 GID
	copy(ll[:], net.ParseIP("fe80::bc7b:11ff:fe7b:5a4d").To16())
	copy(v4[:], net.ParseIP("10.0.0.1").To16())
	return &CheckEnv{
		Driver:    "rxe",
		Port:      &PortAttr{State: PortStateActive, MaxMTU: MTU4096, ActiveMTU: MTU1024, GIDTblLen: 1024, PKeyTblLen: 1, LinkLayer: LinkLayerEthernet},
		PortCount: 1,
		GIDs:      []GIDEntry{{GID: ll, Index: 0, Port: 1, Type: GIDTypeRoCEv2}, {GID: v4, Index: 1, Port: 1, Type: GIDTypeRoCEv2}},
		Device:    &DeviceAttr{VendorID: 0xffffff, MaxQPRdAtom: 128, MaxQPInitRdAtom: 128, PhysPortCnt: 1},
		QPPort:    1,
		QKey:      QKeyUnprivileged,
	}
}

// labPeer is a peer on the lab's own GID, as the loopback tests connect.
func labConn() ConnParams {
	env := rxeEnv()
	return ConnParams{Port: 1, GIDIndex: 1, PSN: 0x1234, Peer: Peer{QPN: 0x12, PSN: 0x4321, GID: env.GIDs[1].GID}}
}

// checkScenario is one modify with the verdict expected and a golden
// explanation.
type checkScenario struct {
	name      string
	from, to  QPState
	typ       QPType
	mask      QPAttrMask
	attr      *QPAttr
	env       *CheckEnv
	errno     syscall.Errno
	decisive  string // rule id of the decisive finding ("" for success)
	wantTable bool
}

func stepAttr(t *testing.T, from, to QPState, typ QPType, edit func(s *Step)) (QPAttrMask, *QPAttr) {
	t.Helper()
	s, err := DefaultsFor(from, to, typ, labConn())
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&s)
	}
	return s.Mask, &s.Attr
}

func checkScenarios(t *testing.T) []checkScenario {
	// The first seed's INIT→RTR: dlid and port only, no GRH, MTU 4096,
	// and three required attributes missing.
	seed := &QPAttr{State: QPStateRTR, PathMTU: MTU4096, DestQPN: 0x11, AH: AHAttr{DLID: 0, SL: 0, SrcPathBits: 0, PortNum: 1}}
	seedMask := AttrState | AttrPathMTU | AttrDestQPN | AttrAV
	rtrMask, rtr := stepAttr(t, QPStateInit, QPStateRTR, QPTypeRC, nil)
	noDest, noDestAttr := stepAttr(t, QPStateInit, QPStateRTR, QPTypeRC, func(s *Step) { s.Clear("dest_qpn") })
	rtsMask, rts := stepAttr(t, QPStateRTR, QPStateRTS, QPTypeRC, nil)
	_, rts32 := stepAttr(t, QPStateRTR, QPStateRTS, QPTypeRC, func(s *Step) { s.Set("timeout", "32") })
	v6Mask, v6 := stepAttr(t, QPStateInit, QPStateRTR, QPTypeRC, func(s *Step) { s.Set("dgid", "fe80::1") })
	wMask, warned := stepAttr(t, QPStateInit, QPStateRTR, QPTypeRC, func(s *Step) {
		s.Set("path_mtu", "4096")
		s.Set("dest_qpn", "0x1000012")
		s.Set("rq_psn", "0x1004321")
		s.Set("max_dest_rd_atomic", "0")
	})
	ucAV := &QPAttr{AH: rtr.AH}
	claim := &QPAttr{CurState: QPStateSQE}
	alt := *rts
	alt.AltAH, alt.AltPort, alt.AltTimeout = rtr.AH, 1, 14
	return []checkScenario{
		{"seed_rc_rtr", QPStateInit, QPStateRTR, QPTypeRC, seedMask, seed, rxeEnv(), syscall.EINVAL, "core.av-grh", false},
		{"seed_rc_rtr_no_env", QPStateInit, QPStateRTR, QPTypeRC, seedMask, seed, nil, syscall.EINVAL, "table.missing", false},
		{"rc_rtr_default", QPStateInit, QPStateRTR, QPTypeRC, rtrMask, rtr, rxeEnv(), 0, "", true},
		{"rc_rtr_missing_dest_qpn", QPStateInit, QPStateRTR, QPTypeRC, noDest, noDestAttr, rxeEnv(), syscall.EINVAL, "table.missing", false},
		{"rc_rtr_without_state", QPStateInit, QPStateRTR, QPTypeRC, rtrMask &^ AttrState, rtr, rxeEnv(), syscall.EINVAL, "table.not-allowed", false},
		{"rc_reset_to_rts", QPStateReset, QPStateRTS, QPTypeRC, AttrState, &QPAttr{}, rxeEnv(), syscall.EINVAL, "table.invalid", false},
		{"rc_rtr_to_rtr", QPStateRTR, QPStateRTR, QPTypeRC, 0, &QPAttr{}, rxeEnv(), syscall.EINVAL, "table.invalid", false},
		{"rc_init_cur_state", QPStateInit, QPStateInit, QPTypeRC, AttrCurState, &QPAttr{CurState: QPStateInit}, rxeEnv(), syscall.EINVAL, "table.cur-state", false},
		{"rc_to_sqe", QPStateRTS, QPStateSQE, QPTypeRC, AttrState, &QPAttr{}, rxeEnv(), syscall.EINVAL, "table.invalid", false},
		{"rc_rts_default", QPStateRTR, QPStateRTS, QPTypeRC, rtsMask, rts, rxeEnv(), 0, "", true},
		{"rc_rts_timeout_32", QPStateRTR, QPStateRTS, QPTypeRC, rtsMask, rts32, rxeEnv(), syscall.EINVAL, "rxe.timeout", true},
		{"rc_rts_alt_path", QPStateRTR, QPStateRTS, QPTypeRC, rtsMask | AttrAltPath, &alt, rxeEnv(), syscall.EINVAL, "core.alt-path-roce", true},
		{"rc_rts_rate_limit", QPStateRTR, QPStateRTS, QPTypeRC, rtsMask | AttrRateLimit, rts, rxeEnv(), syscall.EOPNOTSUPP, "libibverbs.extended-mask", false},
		{"rc_rtr_ipv6_dgid", QPStateInit, QPStateRTR, QPTypeRC, v6Mask, v6, rxeEnv(), syscall.EINVAL, "core.dgid-family", true},
		{"rc_rtr_warnings", QPStateInit, QPStateRTR, QPTypeRC, wMask, warned, rxeEnv(), 0, "", true},
		{"ud_rtr_with_av", QPStateInit, QPStateRTR, QPTypeUD, AttrState | AttrAV, &QPAttr{AH: rtr.AH}, rxeEnv(), syscall.EINVAL, "table.not-allowed", false},
		{"ud_init_qkey_bit31", QPStateReset, QPStateInit, QPTypeUD, AttrState | AttrPKeyIndex | AttrPort | AttrQKey, &QPAttr{Port: 1, QKey: 0x80000000}, rxeEnv(), syscall.EPERM, "uverbs.qkey-reserved", true},
		{"ud_claims_sqe", QPStateReset, QPStateRTS, QPTypeUD, AttrState | AttrCurState, claim, rxeEnv(), 0, "", true},
		{"uc_sqd_av", QPStateSQD, QPStateSQD, QPTypeUC, AttrState | AttrAV, ucAV, rxeEnv(), syscall.EINVAL, "table.not-allowed", false},
		{"rc_sqd_av", QPStateSQD, QPStateSQD, QPTypeRC, AttrState | AttrAV, ucAV, rxeEnv(), 0, "", true},
		{"xrc_recv_rts_ignored_bits", QPStateRTR, QPStateRTS, QPTypeXRCRecv, AttrState | AttrTimeout | AttrSQPSN | AttrRetryCnt, &QPAttr{Timeout: 14, RetryCnt: 7}, nil, 0, "", true},
		{"driver_qp", QPStateRTS, QPStateRTS, QPTypeDriver, AttrState, &QPAttr{}, rxeEnv(), 0, "", false},
	}
}

func TestCheckScenarios(t *testing.T) {
	for _, sc := range checkScenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			v := Check(sc.from, sc.to, sc.typ, sc.mask, sc.attr, sc.env)
			if v.Errno != sc.errno {
				t.Errorf("errno %v, want %v", v.Errno, sc.errno)
			}
			rule := ""
			if d := v.Decisive(); d != nil {
				rule = d.Rule
			}
			if rule != sc.decisive {
				t.Errorf("decisive rule %q, want %q", rule, sc.decisive)
			}
			if v.TableOK != sc.wantTable {
				t.Errorf("TableOK %v, want %v", v.TableOK, sc.wantTable)
			}
			golden(t, "check_"+sc.name, v.Explain())
		})
	}
}

// TestCheckWholeTable runs Check over every type × from × to with the
// exact mask, one required bit missing and one forbidden bit added,
// without attributes or environment: only the table decides, and
// Check's verdict must be ModifyIsOK's.
func TestCheckWholeTable(t *testing.T) {
	for _, typ := range tableTypes {
		for _, from := range QPStates {
			for _, to := range QPStates {
				r := LookupTransition(from, to, typ)
				masks := []QPAttrMask{AttrState | r.Required, AttrState | r.Required | AttrCap}
				for _, h := range ExplainMask(r.Required) {
					masks = append(masks, (AttrState|r.Required)&^h.Bit)
				}
				for _, m := range masks {
					v := Check(from, to, typ, m, nil, nil)
					ok := ModifyIsOK(from, to, typ, m)
					if v.TableOK != ok || (v.Errno == 0) != ok || !v.Known {
						t.Errorf("%s %s→%s %s: TableOK=%v errno=%v known=%v, ModifyIsOK=%v", typ, from, to, m, v.TableOK, v.Errno, v.Known, ok)
					}
					if v.Missing != r.Required&^m || (r.Valid && v.Extra != m&^r.Allowed()) {
						t.Errorf("%s %s→%s %s: missing %s extra %s", typ, from, to, m, v.Missing, v.Extra)
					}
				}
			}
		}
	}
}

func TestCheckFindingsAreTeacherly(t *testing.T) {
	for _, sc := range checkScenarios(t) {
		v := Check(sc.from, sc.to, sc.typ, sc.mask, sc.attr, sc.env)
		for _, f := range v.Findings {
			if f.Rule == "" || f.Source == "" || f.Problem == "" || f.Stage == 0 {
				t.Errorf("%s: finding without rule, source or problem: %+v", sc.name, f)
			}
			if f.Severity == SevError && (f.Errno == 0 || f.Fix == "" && f.Rule != "table.invalid") {
				t.Errorf("%s: error finding without errno or fix: %+v", sc.name, f)
			}
		}
	}
	v := Check(QPStateInit, QPStateRTR, QPTypeRC, AttrState|AttrAV|AttrPathMTU, nil, nil)
	if s := v.Explain(); !strings.Contains(s, "dest_qpn=<the peer QP's number>") || !strings.Contains(s, "DEST_QPN") {
		t.Errorf("a missing DEST_QPN should be explained with how to add it:\n%s", s)
	}
}

func TestDriverForVendor(t *testing.T) {
	if DriverForVendor(0xffffff) != "rxe" || DriverForVendor(0x15b3) != "" {
		t.Error("vendor table")
	}
}
