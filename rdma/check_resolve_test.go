package rdma

import (
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The resolver's answer decides an AV modify of a connected QP on RoCE,
// in the core, before the state table; it is ignored where the kernel
// resolves nothing (UD, no AV) or for another AV than the one looked up.
func TestCheckResolve(t *testing.T) {
	rtrMask, rtr := stepAttr(t, QPStateInit, QPStateRTR, QPTypeRC, func(s *Step) { s.Set("dgid", "::ffff:10.0.0.99") })
	var far GID
	copy(far[:], net.ParseIP("10.0.0.99").To16())
	res := func(en syscall.Errno, waited time.Duration) *AVResolution {
		return &AVResolution{SGIDIndex: 1, DGID: far, Known: true, Errno: en, Dev: "veth0", Waited: waited,
			Route: "10.0.0.99 dev veth0 src 10.0.0.1", Neighbour: "none"}
	}
	other := res(syscall.ETIMEDOUT, 0)
	other.DGID = rxeEnv().GIDs[1].GID
	unknown := res(syscall.ETIMEDOUT, 0)
	unknown.Known = false
	for _, tc := range []struct {
		name     string
		typ      QPType
		from, to QPState
		mask     QPAttrMask
		res      *AVResolution
		errno    syscall.Errno
		decisive string
		text     string
	}{
		{"nothing answers ARP", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, res(syscall.ETIMEDOUT, 0), syscall.ETIMEDOUT, "core.resolve", "nothing answers ARP for the DGID ::ffff:10.0.0.99"},
		{"no route", QPTypeUC, QPStateInit, QPStateRTR, rtrMask &^ (AttrMaxDestRdAtomic | AttrMinRNRTimer), res(syscall.ENETUNREACH, 0), syscall.ENETUNREACH, "core.resolve", "there is no route"},
		{"answered after a wait", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, res(0, 3*time.Millisecond), 0, "", "will wait for ARP"},
		{"known neighbour", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, res(0, 0), 0, "", ""},
		{"resolution of another DGID", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, other, 0, "", ""},
		{"resolver could not ask", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, unknown, 0, "", ""},
		{"not looked up", QPTypeRC, QPStateInit, QPStateRTR, rtrMask, nil, 0, "", ""},
		// The core resolves before the state table judges: an illegal
		// RTS→RTS with an AV still fails with the resolution's errno.
		{"resolution before the table", QPTypeRC, QPStateRTS, QPStateRTS, AttrState | AttrAV, res(syscall.ETIMEDOUT, 0), syscall.ETIMEDOUT, "core.resolve", "ETIMEDOUT"},
		{"SQD to SQD with an AV", QPTypeRC, QPStateSQD, QPStateSQD, AttrState | AttrAV, res(syscall.ETIMEDOUT, 0), syscall.ETIMEDOUT, "core.resolve", ""},
		{"no AV in the mask", QPTypeRC, QPStateRTR, QPStateRTS, AttrState | AttrTimeout | AttrRetryCnt | AttrRNRRetry | AttrSQPSN | AttrMaxQPRdAtomic, res(syscall.ETIMEDOUT, 0), 0, "", ""},
	} {
		env := rxeEnv()
		env.Resolution = tc.res
		a := *rtr
		a.Timeout, a.RetryCnt, a.RNRRetry, a.MaxRdAtomic = 14, 7, 7, 1
		v := Check(tc.from, tc.to, tc.typ, tc.mask, &a, env)
		got := ""
		if d := v.Decisive(); d != nil {
			got = d.Rule
		}
		if v.Errno != tc.errno || got != tc.decisive {
			t.Errorf("%s: errno %v by %q, want %v by %q\n%s", tc.name, v.Errno, got, tc.errno, tc.decisive, v.Explain())
		}
		if tc.text != "" && !strings.Contains(v.Explain(), tc.text) {
			t.Errorf("%s: the explanation does not say %q:\n%s", tc.name, tc.text, v.Explain())
		}
	}
}

// UD QPs resolve no DGID at a modify (their AVs are AHs, per send).
func TestCheckResolveNotForUD(t *testing.T) {
	env := rxeEnv()
	env.Resolution = &AVResolution{SGIDIndex: 1, Known: true, Errno: syscall.ETIMEDOUT}
	if src, ok := (&checkCtx{typ: QPTypeUD, env: *env, roce: true, hasAttr: true, kmask: AttrAV,
		attr: QPAttr{AH: AHAttr{IsGlobal: true, GRH: GlobalRoute{SGIDIndex: 1}}}}).resolvesDMAC(); ok {
		t.Errorf("a UD modify resolves from %v", src)
	}
}
