//go:build lab

package verbs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/netpath"
	"github.com/verbscope/verbscope/rdma"
)

// The differential test: for RC, UC and UD QPs on rxe0, every (current,
// next) pair of reachable states, and masks that are exactly right,
// missing each required attribute, carrying each optional one and each
// forbidden one, plus cases for every value rule, a fresh QP is driven
// into the current state and modified; Check's predicted errno must be
// the kernel's in every case.
//
// Reachable current states: RESET (a new QP), INIT, RTR and RTS by the
// usual walk, SQD by RTS→SQD (once ibv_query_qp says the drain is over),
// ERR by INIT→ERR. SQE cannot be entered by a modify; its rows are
// exercised through CUR_STATE claims, which rxe believes.

// diffLab is the shared setup: the device, a CQ, the facts Check needs,
// and a peer QP per connected type.
type diffLab struct {
	t        *testing.T
	c        *Context
	pd       *PD
	cq       *CQ
	env      rdma.CheckEnv
	gidIndex int
	gid      GID
	peers    map[QPType]*QP
}

func newDiffLab(t *testing.T) *diffLab {
	c := labDevice(t)
	l := &diffLab{t: t, c: c, peers: map[QPType]*QP{}}
	var err error
	if l.pd, err = c.AllocPD(); err != nil {
		t.Fatal(err)
	}
	if l.cq, err = c.CreateCQ(16, nil, 0); err != nil {
		t.Fatal(err)
	}
	dev, err := c.QueryDevice()
	if err != nil {
		t.Fatal(err)
	}
	port, err := c.QueryPort(1)
	if err != nil {
		t.Fatal(err)
	}
	gids, err := c.GIDTable()
	if err != nil {
		t.Fatal(err)
	}
	gids = slices.DeleteFunc(gids, func(g GIDEntry) bool { return g.Port != 1 })
	l.gidIndex, err = strconv.Atoi(os.Getenv("LAB_GID_INDEX"))
	if err != nil {
		t.Fatalf("LAB_GID_INDEX: %v", err)
	}
	g, err := c.QueryGID(1, l.gidIndex)
	if err != nil {
		t.Fatal(err)
	}
	l.gid = g.GID
	l.env = rdma.CheckEnv{Driver: rdma.DriverForVendor(dev.VendorID), Port: &port, PortCount: dev.PhysPortCnt,
		GIDs: gids, Device: &dev, QKey: rdma.QKeyPrivileged, // the lab runs as root: CAP_NET_RAW
		Kernel: kernelRelease()}
	if l.env.Driver != "rxe" {
		t.Fatalf("vendor_id %#x is not rxe's", dev.VendorID)
	}
	for _, typ := range []QPType{rdma.QPTypeRC, rdma.QPTypeUC} {
		p := l.newQP(typ)
		// The peer is connected to itself: it only has to be a real QP
		// whose number the cases' RTR names.
		l.walk(p, rdma.QPStateRTS, p.Num())
		l.peers[typ] = p
	}
	// Closed before the context (cleanups run last first): a handle left
	// to the context alone can be collected between the test's end and
	// the context's Close, and the leak check reports it (fc2).
	t.Cleanup(func() {
		for _, p := range l.peers {
			if err := p.Close(); err != nil {
				t.Errorf("closing a peer QP: %v", err)
			}
		}
		if err := l.cq.Close(); err != nil {
			t.Errorf("closing the CQ: %v", err)
		}
		if err := l.pd.Close(); err != nil {
			t.Errorf("closing the PD: %v", err)
		}
	})
	return l
}

func (l *diffLab) newQP(typ QPType) *QP {
	qp, err := l.pd.CreateQP(QPInitAttr{Type: typ, SendCQ: l.cq, RecvCQ: l.cq,
		Cap: QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		l.t.Fatalf("CreateQP(%s): %v", typ, err)
	}
	return qp
}

func (l *diffLab) conn(peerQPN uint32) rdma.ConnParams {
	return rdma.ConnParams{Port: 1, GIDIndex: l.gidIndex, PSN: 200, Peer: rdma.Peer{QPN: peerQPN, PSN: 100, GID: l.gid}}
}

// walk drives a QP from RESET to the target state with the defaults,
// checking that Check predicts each step's success.
func (l *diffLab) walk(qp *QP, target QPState, peerQPN uint32) {
	l.t.Helper()
	var path []QPState
	switch target {
	case rdma.QPStateReset:
	case rdma.QPStateErr:
		path = []QPState{rdma.QPStateInit, rdma.QPStateErr}
	default:
		path = rdma.PathTo(rdma.QPStateReset, target, qp.Type())
	}
	from := rdma.QPStateReset
	for _, to := range path {
		s, err := rdma.DefaultsFor(from, to, qp.Type(), l.conn(peerQPN))
		if err != nil {
			l.t.Fatal(err)
		}
		env := l.envFor(from)
		if v := s.Check(&env); !v.OK() {
			l.t.Fatalf("walking a %s QP: the checker refuses the default %s→%s:\n%s", qp.Type(), from, to, v.Explain())
		}
		if err := qp.Modify(&s.Attr, s.Mask); err != nil {
			l.t.Fatalf("walking a %s QP %s→%s: %v", qp.Type(), from, to, err)
		}
		from = to
	}
	if target == rdma.QPStateSQD {
		l.waitDrained(qp)
	}
	if st, err := qp.State(); err != nil || st != target {
		l.t.Fatalf("walked a %s QP to %s, query says %s (%v)", qp.Type(), target, st, err)
	}
}

// waitDrained polls until rxe has finished draining (sq_draining=0), so
// the rxe.sqd-draining rule does not fire by chance.
func (l *diffLab) waitDrained(qp *QP) {
	deadline := time.Now().Add(labkit.Step)
	for {
		a, err := qp.Query(rdma.AttrState)
		if err != nil {
			l.t.Fatal(err)
		}
		if !a.SQDraining {
			return
		}
		if time.Now().After(deadline) {
			l.t.Fatalf("QP %d still draining after %v", qp.Num(), labkit.Step)
		}
		time.Sleep(time.Millisecond)
	}
}

// envFor is the Check environment of a QP in state cur: bound to port 1
// once it has been through INIT.
func (l *diffLab) envFor(cur QPState) rdma.CheckEnv {
	env := l.env
	if cur != rdma.QPStateReset {
		env.QPPort = 1
	}
	return env
}

// goodAttr has a valid value in every field, so only the mask (or a
// case's one mutation) decides.
func (l *diffLab) goodAttr(typ QPType, cur, next QPState) QPAttr {
	av := AHAttr{IsGlobal: true, PortNum: 1, GRH: GlobalRoute{DGID: l.gid, SGIDIndex: uint8(l.gidIndex), HopLimit: 1}}
	a := QPAttr{State: next, CurState: cur, PathMTU: rdma.MTU1024, QKey: 0x11111111, RQPSN: 100, SQPSN: 200,
		AccessFlags: rdma.AccessRemoteWrite | rdma.AccessRemoteRead | rdma.AccessRemoteAtomic,
		Cap:         QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1},
		AH:          av, AltAH: av, EnSQDAsyncNotify: true, MaxRdAtomic: 1, MaxDestRdAtomic: 1,
		MinRNRTimer: 12, Port: 1, Timeout: 14, RetryCnt: 7, RNRRetry: 7, AltPort: 1, AltTimeout: 14, DestQPN: 1}
	if p := l.peers[typ]; p != nil {
		a.DestQPN = p.Num()
	}
	return a
}

// diffCase is one modify to compare.
type diffCase struct {
	typ       QPType
	cur, next QPState
	mask      QPAttrMask
	what      string
	mutate    func(a *QPAttr)
	// after checks the QP after a successful modify (e.g. PSN masking).
	after func(t *testing.T, qp *QP)
}

func (dc diffCase) String() string {
	return fmt.Sprintf("%s %s→%s mask=%s (%s)", dc.typ, dc.cur, dc.next, dc.mask, dc.what)
}

// probeBits are the mask bits tried as extras: every named attribute
// but STATE, and one of the never-exposed bits 21-24.
func probeBits() []QPAttrMask {
	var out []QPAttrMask
	for _, b := range rdma.AttrBits() {
		if b != rdma.AttrState {
			out = append(out, b)
		}
	}
	return append(out, 1<<22)
}

// maskCases are the table-driven cases of one type: every reachable
// current state, every target with STATE and the stay-put modify without
// it; exact, each required missing, each optional added, all optional,
// each forbidden added.
func maskCases(typ QPType) []diffCase {
	var out []diffCase
	for _, cur := range []QPState{rdma.QPStateReset, rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS, rdma.QPStateSQD, rdma.QPStateErr} {
		targets := append(slices.Clone(rdma.QPStates), -1) // -1: no STATE bit
		for _, next := range targets {
			state := rdma.AttrState
			if next < 0 {
				next, state = cur, 0
			}
			r := rdma.LookupTransition(cur, next, typ)
			base := state | r.Required
			add := func(m QPAttrMask, what string) {
				out = append(out, diffCase{typ: typ, cur: cur, next: next, mask: m, what: what})
			}
			add(base, "exact")
			for _, b := range rdma.ExplainMask(r.Required) {
				add(base&^b.Bit, "without "+b.Name)
			}
			for _, b := range rdma.ExplainMask(r.Optional) {
				add(base|b.Bit, "with optional "+b.Name)
			}
			if len(rdma.ExplainMask(r.Optional)) > 1 {
				add(base|r.Optional, "with every optional")
			}
			for _, b := range probeBits() {
				if b&(r.Required|r.Optional) == 0 {
					add(base|b, "with forbidden "+b.String())
				}
			}
		}
	}
	return out
}

// claimCases exercise CUR_STATE claims, which rxe believes: from every
// reachable state, claim each state and move to RTS (mask: STATE,
// CUR_STATE and what claim→RTS requires), or stay put (CUR_STATE only).
// The SQE rows of the table are reached only this way.
func claimCases(typ QPType) []diffCase {
	var out []diffCase
	for _, cur := range []QPState{rdma.QPStateReset, rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS, rdma.QPStateSQD, rdma.QPStateErr} {
		for _, claim := range rdma.QPStates {
			claim := claim
			mut := func(a *QPAttr) { a.CurState = claim }
			req := rdma.LookupTransition(claim, rdma.QPStateRTS, typ).Required
			out = append(out,
				diffCase{typ: typ, cur: cur, next: rdma.QPStateRTS, mask: rdma.AttrState | rdma.AttrCurState | req, what: "claims " + claim.String(), mutate: mut},
				diffCase{typ: typ, cur: cur, next: cur, mask: rdma.AttrCurState, what: "claims " + claim.String() + ", no STATE", mutate: mut})
		}
	}
	return out
}

// valueCases exercise the rules beyond the state table with a legal mask
// and one bad (or odd) value each.
func (l *diffLab) valueCases(typ QPType) []diffCase {
	rtr := rdma.AttrState | rdma.LookupTransition(rdma.QPStateInit, rdma.QPStateRTR, typ).Required
	rts := rdma.AttrState | rdma.LookupTransition(rdma.QPStateRTR, rdma.QPStateRTS, typ).Required
	ini := rdma.AttrState | rdma.LookupTransition(rdma.QPStateReset, rdma.QPStateInit, typ).Required
	emptySlot := uint8(0)
	for i := 0; i < 255; i++ {
		if _, populated, _ := l.env.GIDEntry(uint8(i)); !populated {
			emptySlot = uint8(i)
			break
		}
	}
	var linkLocal GID
	for _, g := range l.env.GIDs {
		if !g.GID.IsIPv4() {
			linkLocal = g.GID
		}
	}
	masked := func(get func(QPAttr) uint32, want uint32) func(t *testing.T, qp *QP) {
		return func(t *testing.T, qp *QP) {
			a, err := qp.Query(rdma.AttrRQPSN | rdma.AttrSQPSN)
			if err != nil {
				t.Fatal(err)
			}
			if got := get(a); got != want {
				t.Errorf("%s QP: PSN after modify is %#x, want %#x (masked to 24 bits)", qp.Type(), got, want)
			}
		}
	}
	c := func(cur, next QPState, mask QPAttrMask, what string, m func(*QPAttr)) diffCase {
		return diffCase{typ: typ, cur: cur, next: next, mask: mask, what: what, mutate: m}
	}
	out := []diffCase{
		c(rdma.QPStateReset, rdma.QPStateInit, ini, "port 2", func(a *QPAttr) { a.Port = 2 }),
		c(rdma.QPStateReset, rdma.QPStateInit, ini, "port 0", func(a *QPAttr) { a.Port = 0 }),
		c(rdma.QPStateReset, rdma.QPStateInit, ini, "pkey_index 1 (beyond the 1-entry table)", func(a *QPAttr) { a.PKeyIndex = 1 }),
		c(rdma.QPStateReset, rdma.QPStateInit, ini, "qp_state 7 (UNKNOWN)", func(a *QPAttr) { a.State = rdma.QPStateUnknown }),
		c(rdma.QPStateReset, rdma.QPStateInit, ini|1<<21, "bit 21", nil),
		c(rdma.QPStateReset, rdma.QPStateInit, ini|1<<26, "bit 26", nil),
		c(rdma.QPStateRTS, rdma.QPStateRTS, rdma.AttrCurState, "cur_qp_state 7", func(a *QPAttr) { a.CurState = rdma.QPStateUnknown }),
	}
	if typ == rdma.QPTypeUD {
		out = append(out,
			c(rdma.QPStateReset, rdma.QPStateInit, ini, "qkey with bit 31 (privileged as root)", func(a *QPAttr) { a.QKey = 0x80000001 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "sq_psn 25 bits", func(a *QPAttr) { a.SQPSN = 0x1000005 }))
		out[len(out)-1].after = masked(func(a QPAttr) uint32 { return a.SQPSN }, 5)
		return out
	}
	// Connected types: the AV and the RTR/RTS values.
	out = append(out,
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "is_global=0 on RoCE", func(a *QPAttr) { a.AH.IsGlobal = false; a.AH.DLID = 1 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, fmt.Sprintf("sgid_index %d, an empty slot", emptySlot), func(a *QPAttr) { a.AH.GRH.SGIDIndex = emptySlot }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "AV port_num 0", func(a *QPAttr) { a.AH.PortNum = 0 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "AV port_num 2", func(a *QPAttr) { a.AH.PortNum = 2 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "DGID all zeros", func(a *QPAttr) { a.AH.GRH.DGID = GID{} }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "IPv6 DGID, IPv4 source GID", func(a *QPAttr) { a.AH.GRH.DGID = linkLocal }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "path_mtu 4096 above active_mtu", func(a *QPAttr) { a.PathMTU = rdma.MTU4096 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "path_mtu code 6", func(a *QPAttr) { a.PathMTU = 6 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "path_mtu code 0", func(a *QPAttr) { a.PathMTU = 0 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "dest_qpn 25 bits", func(a *QPAttr) { a.DestQPN |= 1 << 24 }),
		c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "rq_psn 25 bits", func(a *QPAttr) { a.RQPSN = 0x1000007 }),
		c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "sq_psn 25 bits", func(a *QPAttr) { a.SQPSN = 0x1000005 }),
		c(rdma.QPStateSQD, rdma.QPStateSQD, rdma.AttrState|rdma.AttrAV, "AV with a zero DGID in SQD", func(a *QPAttr) { a.AH.GRH.DGID = GID{} }),
	)
	out[len(out)-3].after = masked(func(a QPAttr) uint32 { return a.RQPSN }, 7)
	out[len(out)-2].after = masked(func(a QPAttr) uint32 { return a.SQPSN }, 5)
	if typ == rdma.QPTypeRC {
		out = append(out,
			c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "max_dest_rd_atomic 200", func(a *QPAttr) { a.MaxDestRdAtomic = 200 }),
			c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "max_dest_rd_atomic 0", func(a *QPAttr) { a.MaxDestRdAtomic = 0 }),
			c(rdma.QPStateInit, rdma.QPStateRTR, rtr, "min_rnr_timer 40", func(a *QPAttr) { a.MinRNRTimer = 40 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "timeout 32", func(a *QPAttr) { a.Timeout = 32 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "timeout 31", func(a *QPAttr) { a.Timeout = 31 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "retry_cnt 8", func(a *QPAttr) { a.RetryCnt = 8 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "rnr_retry 8", func(a *QPAttr) { a.RNRRetry = 8 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "max_rd_atomic 129", func(a *QPAttr) { a.MaxRdAtomic = 129 }),
			c(rdma.QPStateRTR, rdma.QPStateRTS, rts, "max_rd_atomic 128", func(a *QPAttr) { a.MaxRdAtomic = 128 }),
			c(rdma.QPStateSQD, rdma.QPStateSQD, rdma.AttrState|rdma.AttrAV|rdma.AttrPort, "AV and PORT in SQD", nil),
		)
	}
	return out
}

// resolveFor looks the AV's DGID up as the shell does before a modify
// (netpath, over the guest's rtnetlink), for the core.resolve rule.
func resolveFor(env *rdma.CheckEnv, mask QPAttrMask, ah *AHAttr) *rdma.AVResolution {
	if mask&rdma.AttrAV == 0 || !ah.IsGlobal {
		return nil
	}
	src, populated, _ := env.GIDEntry(ah.GRH.SGIDIndex)
	if !populated {
		return nil
	}
	r := netpath.Resolver{}.ResolveAV(context.Background(), src, ah.GRH.DGID)
	return &r
}

// errnoOf extracts the errno of a verbs error (0 for nil).
func errnoOf(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var en syscall.Errno
	if errors.As(err, &en) {
		return en
	}
	return syscall.Errno(^uintptr(0))
}

// run executes one case on a fresh QP and reports a disagreement.
func (l *diffLab) run(dc diffCase) (decisive string, disagreement string) {
	qp := l.newQP(dc.typ)
	defer func() {
		if err := qp.Close(); err != nil {
			l.t.Errorf("Close: %v", err)
		}
	}()
	l.walk(qp, dc.cur, l.peerNum(dc.typ))
	attr := l.goodAttr(dc.typ, dc.cur, dc.next)
	if dc.mutate != nil {
		dc.mutate(&attr)
	}
	env := l.envFor(dc.cur)
	env.Resolution = resolveFor(&env, dc.mask, &attr.AH)
	v := rdma.Check(dc.cur, attr.State, dc.typ, dc.mask, &attr, &env)
	decisive = "success"
	if d := v.Decisive(); d != nil {
		decisive = d.Rule
	}
	err := qp.Modify(&attr, dc.mask)
	if got := errnoOf(err); got != v.Errno || !v.Known {
		return decisive, fmt.Sprintf("%s: checker says %s (%s), kernel says %v\n%s", dc, rdma.ErrnoText(v.Errno), decisive, err, v.Explain())
	}
	// The state table's own verdict: when ib_modify_qp_is_ok refuses,
	// the kernel must refuse; when it accepts and the kernel refuses, a
	// rule of another stage must be the reason.
	if !v.TableOK && err == nil {
		return decisive, fmt.Sprintf("%s: the table refuses, the kernel accepted", dc)
	}
	if v.TableOK && err != nil && v.Decisive().Stage == rdma.StageTable {
		return decisive, fmt.Sprintf("%s: the table accepts, yet a table rule is decisive", dc)
	}
	if err == nil && dc.after != nil {
		dc.after(l.t, qp)
	}
	return decisive, ""
}

func (l *diffLab) peerNum(typ QPType) uint32 {
	if p := l.peers[typ]; p != nil {
		return p.Num()
	}
	return 1
}

// TestCheckMatchesKernel is the differential test of issue 3.
func TestCheckMatchesKernel(t *testing.T) {
	labkit.Clean(t)
	l := newDiffLab(t)
	rng, seed := diffRand(t)
	t.Logf("random cases: seed %d (VERBSCOPE_DIFF_SEED=%d repeats them)", seed, seed)
	total := 0
	byRule := map[string]int{}
	byStage := map[string]int{}
	var bad []string
	for _, typ := range []QPType{rdma.QPTypeRC, rdma.QPTypeUC, rdma.QPTypeUD} {
		cases := slices.Concat(maskCases(typ), claimCases(typ), l.valueCases(typ), l.randomCases(typ, rng, randomPerType))
		start := time.Now()
		agree := 0
		for _, dc := range cases {
			rule, d := l.run(dc)
			byRule[rule]++
			byStage[strings.SplitN(rule, ".", 2)[0]]++
			if d != "" {
				bad = append(bad, d)
				continue
			}
			agree++
		}
		t.Logf("%s: %d cases compared, %d agree (%.1f s)", typ, len(cases), agree, time.Since(start).Seconds())
		total += len(cases)
	}
	rules := make([]string, 0, len(byRule))
	for r := range byRule {
		rules = append(rules, r)
	}
	sort.Strings(rules)
	var tally []string
	for _, r := range rules {
		tally = append(tally, fmt.Sprintf("%s %d", r, byRule[r]))
	}
	t.Logf("total: %d cases compared, %d disagreements", total, len(bad))
	t.Logf("decided by the state table (ib_modify_qp_is_ok): %d; by other rule sets: libibverbs %d, uverbs %d, core %d, rxe %d; accepted: %d",
		byStage["table"], byStage["libibverbs"], byStage["uverbs"], byStage["core"], byStage["rxe"], byStage["success"])
	t.Logf("decisive rules: %s", strings.Join(tally, ", "))
	for _, d := range bad {
		t.Error(d)
	}
}
