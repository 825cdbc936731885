//go:build lab

package verbs

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/rdma"
)

// randomPerType is how many random cases each QP type gets: a new seed
// each run, so the runs add up (250 a run took a fifth of the lab's
// busiest package).
const randomPerType = 100

// unreachable is a DGID on veth0's subnet that nothing answers: the
// kernel asks ARP for a second and fails with ETIMEDOUT.
var unreachable = func() GID {
	var g GID
	copy(g[:], net.ParseIP("10.0.0.99").To16())
	return g
}()

// diffRand is the random source of the random cases, seeded from
// VERBSCOPE_DIFF_SEED or the clock (the seed is logged, so a
// disagreement can be repeated).
func diffRand(t *testing.T) (*rand.Rand, uint64) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("VERBSCOPE_DIFF_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("VERBSCOPE_DIFF_SEED=%q: %v", s, err)
		}
		seed = n
	}
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seed
}

// legalSteps are the transitions of the kernel's table that a QP of typ
// can take from a state the test can reach (SQE only by claims).
func legalSteps(typ QPType) [][2]QPState {
	var out [][2]QPState
	for _, cur := range []QPState{rdma.QPStateReset, rdma.QPStateInit, rdma.QPStateRTR, rdma.QPStateRTS, rdma.QPStateSQD, rdma.QPStateErr} {
		for _, next := range rdma.LegalNext(cur, typ) {
			out = append(out, [2]QPState{cur, next})
		}
	}
	return out
}

// mutation is one attribute's random value: good ones, edge ones and
// ones the device or the kernel refuses.
type mutation struct {
	bit  QPAttrMask
	name string
	set  func(l *diffLab, r *rand.Rand, a *QPAttr) string
}

func pick[T any](r *rand.Rand, vs ...T) T { return vs[r.IntN(len(vs))] }

func (l *diffLab) mutations() []mutation {
	dev := l.env.Device
	active := l.env.Port.ActiveMTU
	empty := uint8(0)
	for i := 0; i < 255; i++ {
		if _, populated, _ := l.env.GIDEntry(uint8(i)); !populated {
			empty = uint8(i)
			break
		}
	}
	return []mutation{
		{rdma.AttrPathMTU, "path_mtu", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.PathMTU = pick(r, rdma.MTU256, rdma.MTU512, active, active+1, rdma.MTU4096, 0, 6)
			return fmt.Sprintf("path_mtu code %d (active %d)", a.PathMTU, active)
		}},
		{rdma.AttrMaxQPRdAtomic, "max_rd_atomic", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.MaxRdAtomic = uint8(pick(r, 0, 1, dev.MaxQPInitRdAtom, dev.MaxQPInitRdAtom+1, dev.MaxQPRdAtom, dev.MaxQPRdAtom+1, 255))
			return fmt.Sprintf("max_rd_atomic %d (device %d/%d)", a.MaxRdAtomic, dev.MaxQPRdAtom, dev.MaxQPInitRdAtom)
		}},
		{rdma.AttrMaxDestRdAtomic, "max_dest_rd_atomic", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.MaxDestRdAtomic = uint8(pick(r, 0, 1, dev.MaxQPRdAtom, dev.MaxQPRdAtom+1, dev.MaxResRdAtom+1, 255))
			return fmt.Sprintf("max_dest_rd_atomic %d", a.MaxDestRdAtomic)
		}},
		{rdma.AttrTimeout, "timeout", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.Timeout = uint8(pick(r, 0, 1, 14, 31, 32, 255))
			return fmt.Sprintf("timeout %d", a.Timeout)
		}},
		{rdma.AttrRetryCnt, "retry_cnt", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.RetryCnt = uint8(r.IntN(10))
			return fmt.Sprintf("retry_cnt %d", a.RetryCnt)
		}},
		{rdma.AttrRNRRetry, "rnr_retry", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.RNRRetry = uint8(r.IntN(10))
			return fmt.Sprintf("rnr_retry %d", a.RNRRetry)
		}},
		{rdma.AttrMinRNRTimer, "min_rnr_timer", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.MinRNRTimer = uint8(pick(r, 0, 12, 31, 32, 200))
			return fmt.Sprintf("min_rnr_timer %d", a.MinRNRTimer)
		}},
		{rdma.AttrSQPSN, "sq_psn", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.SQPSN = r.Uint32() >> pick(r, 0, 7, 8)
			return fmt.Sprintf("sq_psn %#x", a.SQPSN)
		}},
		{rdma.AttrRQPSN, "rq_psn", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.RQPSN = r.Uint32() >> pick(r, 0, 7, 8)
			return fmt.Sprintf("rq_psn %#x", a.RQPSN)
		}},
		{rdma.AttrPKeyIndex, "pkey_index", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.PKeyIndex = uint16(pick(r, 0, 0, 1))
			return fmt.Sprintf("pkey_index %d", a.PKeyIndex)
		}},
		{rdma.AttrPort, "port", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.Port = uint8(pick(r, 1, 1, 0, 2))
			return fmt.Sprintf("port %d", a.Port)
		}},
		{rdma.AttrQKey, "qkey", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.QKey = pick(r, uint32(0x11111111), 0, 0x80000001)
			return fmt.Sprintf("qkey %#x", a.QKey)
		}},
		{rdma.AttrAccessFlags, "access", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.AccessFlags = AccessFlags(r.IntN(16))
			return "access " + a.AccessFlags.String()
		}},
		{rdma.AttrDestQPN, "dest_qpn", func(l *diffLab, r *rand.Rand, a *QPAttr) string {
			a.DestQPN |= uint32(pick(r, 0, 1<<24))
			return fmt.Sprintf("dest_qpn %#x", a.DestQPN)
		}},
		{rdma.AttrEnSQDAsyncNotify, "en_sqd_async_notify", func(_ *diffLab, r *rand.Rand, a *QPAttr) string {
			a.EnSQDAsyncNotify = r.IntN(2) == 0
			return fmt.Sprintf("en_sqd_async_notify %v", a.EnSQDAsyncNotify)
		}},
		{rdma.AttrAV, "av", func(l *diffLab, r *rand.Rand, a *QPAttr) string {
			switch r.IntN(8) {
			case 0:
				a.AH.GRH.SGIDIndex = empty
				return fmt.Sprintf("sgid_index %d (empty)", empty)
			case 1:
				a.AH.PortNum = 2
				return "AV port 2"
			case 2:
				a.AH.GRH.HopLimit = uint8(r.IntN(256))
				return fmt.Sprintf("hop_limit %d", a.AH.GRH.HopLimit)
			case 3:
				a.AH.GRH.TrafficClass = uint8(r.IntN(256))
				return fmt.Sprintf("traffic_class %d", a.AH.GRH.TrafficClass)
			}
			return "AV to self"
		}},
	}
}

// randomCases draws n cases for typ: a legal step of the table, its
// required attributes and a random subset of its optional ones, each
// attribute with a random value (good, edge, or one the device refuses:
// path_mtu above the active MTU, rd_atomic above the device's limits, an
// empty sgid_index, ...), and now and then the AV to a DGID nothing
// answers (10.0.0.99, a second of ARP each: a few per type).
func (l *diffLab) randomCases(typ QPType, r *rand.Rand, n int) []diffCase {
	steps := legalSteps(typ)
	muts := l.mutations()
	var out []diffCase
	unanswered := 0
	for len(out) < n {
		st := steps[r.IntN(len(steps))]
		rule := rdma.LookupTransition(st[0], st[1], typ)
		mask := rdma.AttrState | rule.Required
		for _, b := range rdma.AttrBits() {
			if rule.Optional&b != 0 && r.IntN(2) == 0 {
				mask |= b
			}
		}
		var edits []func(*QPAttr)
		var what []string
		for _, m := range muts {
			if mask&m.bit == 0 || r.IntN(3) != 0 {
				continue
			}
			m := m
			seed := r.Uint64()
			what = append(what, "")
			i := len(what) - 1
			edits = append(edits, func(a *QPAttr) {
				what[i] = m.set(l, rand.New(rand.NewPCG(seed, seed)), a)
			})
		}
		far := mask&rdma.AttrAV != 0 && typ != rdma.QPTypeUD && unanswered < 4 && r.IntN(6) == 0
		if far {
			unanswered++
			edits = append(edits, func(a *QPAttr) { a.AH.GRH.DGID = unreachable })
		}
		dc := diffCase{typ: typ, cur: st[0], next: st[1], mask: mask}
		// Run the edits once now to name the case, again on the real attr.
		probe := l.goodAttr(typ, st[0], st[1])
		for _, e := range edits {
			e(&probe)
		}
		dc.what = "random: " + strings.Join(slices.DeleteFunc(slices.Clone(what), func(s string) bool { return s == "" }), ", ")
		if far {
			dc.what += ", DGID 10.0.0.99 (nothing answers)"
		}
		dc.mutate = func(a *QPAttr) {
			for _, e := range edits {
				e(a)
			}
		}
		out = append(out, dc)
	}
	return out
}
