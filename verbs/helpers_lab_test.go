//go:build lab

package verbs

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// Helpers shared by the data-path lab tests: two QPs on rxe0 connected to
// each other (loopback works on one rxe device; two devices in one 6.1
// kernel cannot talk), registered buffers, and waits with timeouts
// generous enough for TCG, where rxe's retry timers fire often.

// wcTimeout bounds every wait for a completion or an event.
const wcTimeout = labkit.Step

// labGID returns the RoCE v2 IPv4 GID the lab set up and its index.
func labGID(t testing.TB, c *Context) (GID, int) {
	t.Helper()
	idx, err := strconv.Atoi(os.Getenv("LAB_GID_INDEX"))
	if err != nil {
		t.Fatalf("LAB_GID_INDEX=%q: %v", os.Getenv("LAB_GID_INDEX"), err)
	}
	g, err := c.QueryGID(1, idx)
	if err != nil {
		t.Fatalf("QueryGID(1, %d): %v", idx, err)
	}
	return g.GID, idx
}

// pair is two QPs of one type connected to each other on one device,
// each with its own CQ and a buffer.
type pair struct {
	c        *Context
	pd       *PD
	cqA, cqB *CQ
	a, b     *QP
	mrA, mrB *MR
	gid      GID
	gidIndex int
	ah       *AH // UD: the address of the other side (one port and GID on loopback)
	qkey     uint32
}

// close destroys what newPairOn made, users before what they use; what
// the test closed already is skipped (Close is idempotent).
func (p *pair) close() error {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	if p.ah != nil {
		add(p.ah.Close())
	}
	for _, qp := range []*QP{p.a, p.b} {
		if qp != nil {
			add(qp.Close())
		}
	}
	for _, mr := range []*MR{p.mrA, p.mrB} {
		if mr != nil {
			add(mr.Close())
		}
	}
	if p.pd != nil {
		add(p.pd.Close())
	}
	for _, cq := range []*CQ{p.cqA, p.cqB} {
		if cq != nil {
			add(cq.Close())
		}
	}
	return errors.Join(errs...)
}

// pairOpts changes what newPair builds.
type pairOpts struct {
	cqe        int         // CQ size (default 64)
	cap        QPCap       // default 32 WRs, 2 SGEs, 64 inline bytes each way
	access     AccessFlags // QP and MR access (default local+remote write/read/atomic)
	mrAccessB  AccessFlags // if set, B's MR access instead
	mrSize     int         // default 64 KiB
	noRNRRetry bool        // RTS rnr_retry 0 instead of 7 (retry forever)
	srq        *SRQ        // B's receives come from this SRQ
	sigAll     bool
	channel    *CompChannel // CQs report here
}

const allAccess = rdma.AccessLocalWrite | rdma.AccessRemoteWrite | rdma.AccessRemoteRead | rdma.AccessRemoteAtomic

// newPair opens the lab device (closed at test end) and connects two QPs
// of type typ to each other through RESET, INIT, RTR and RTS with the
// values ibv_rc_pingpong uses.
func newPair(t testing.TB, typ QPType, o pairOpts) *pair {
	t.Helper()
	c := labDevice(t)
	return newPairOn(t, c, typ, o)
}

func newPairOn(t testing.TB, c *Context, typ QPType, o pairOpts) *pair {
	t.Helper()
	if o.cqe == 0 {
		o.cqe = 64
	}
	if o.cap == (QPCap{}) {
		o.cap = QPCap{MaxSendWR: 32, MaxRecvWR: 32, MaxSendSGE: 2, MaxRecvSGE: 2, MaxInlineData: 64}
	}
	if o.access == 0 {
		o.access = allAccess
	}
	if o.mrAccessB == 0 {
		o.mrAccessB = o.access
	}
	if o.mrSize == 0 {
		o.mrSize = 64 << 10
	}
	rnrRetry := uint8(7)
	if o.noRNRRetry {
		rnrRetry = 0
	}
	p := &pair{c: c, qkey: 0x11111111}
	// Closed at the test's end, before the context (cleanups run last
	// first), by wrappers the cleanup keeps reachable: a wrapper left to
	// the context's Close can be collected before it, and the leak check
	// (TestMain's CheckLeaks) reports it, or not, as the GC happens to
	// run (fc2, in the differential test).
	t.Cleanup(func() {
		if err := p.close(); err != nil {
			t.Errorf("closing the pair: %v", err)
		}
	})
	p.gid, p.gidIndex = labGID(t, c)
	var err error
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	p.pd, err = c.AllocPD()
	must("AllocPD", err)
	p.cqA, err = c.CreateCQ(o.cqe, o.channel, 0)
	must("CreateCQ A", err)
	p.cqB, err = c.CreateCQ(o.cqe, o.channel, 0)
	must("CreateCQ B", err)
	p.a, err = p.pd.CreateQP(QPInitAttr{Type: typ, SendCQ: p.cqA, RecvCQ: p.cqA, Cap: o.cap, SigAll: o.sigAll})
	must("CreateQP A", err)
	p.b, err = p.pd.CreateQP(QPInitAttr{Type: typ, SendCQ: p.cqB, RecvCQ: p.cqB, Cap: o.cap, SigAll: o.sigAll, SRQ: o.srq})
	must("CreateQP B", err)
	p.mrA, err = p.pd.RegMR(o.mrSize, o.access|rdma.AccessLocalWrite)
	must("RegMR A", err)
	p.mrB, err = p.pd.RegMR(o.mrSize, o.mrAccessB|rdma.AccessLocalWrite)
	must("RegMR B", err)
	for _, x := range []struct{ qp, peer *QP }{{p.a, p.b}, {p.b, p.a}} {
		connectQP(t, x.qp, x.peer.Num(), p.gid, p.gidIndex, o.access, rnrRetry, p.qkey)
	}
	if typ == rdma.QPTypeUD {
		av := AHAttr{IsGlobal: true, PortNum: 1, GRH: GlobalRoute{DGID: p.gid, SGIDIndex: uint8(p.gidIndex), HopLimit: 1}}
		p.ah, err = p.pd.CreateAH(av)
		must("CreateAH", err)
	}
	return p
}

// connectQP walks qp from RESET to RTS against the remote QP number
// peer at gid, with rc_pingpong's values (MTU 1024, PSN 0, timeout 14,
// retry_cnt 7).
func connectQP(t testing.TB, qp *QP, peer uint32, gid GID, gidIndex int, access AccessFlags, rnr uint8, qkey uint32) {
	t.Helper()
	typ := qp.Type()
	init := QPAttr{State: rdma.QPStateInit, Port: 1, AccessFlags: access, QKey: qkey}
	initMask := rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags
	if typ == rdma.QPTypeUD {
		initMask = rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrQKey
	}
	rtr := QPAttr{State: rdma.QPStateRTR, PathMTU: rdma.MTU1024, DestQPN: peer, MaxDestRdAtomic: 1, MinRNRTimer: 12,
		AH: AHAttr{IsGlobal: true, PortNum: 1, GRH: GlobalRoute{DGID: gid, SGIDIndex: uint8(gidIndex), HopLimit: 1}}}
	rtrMask := rdma.AttrState | rdma.AttrAV | rdma.AttrPathMTU | rdma.AttrDestQPN | rdma.AttrRQPSN
	rts := QPAttr{State: rdma.QPStateRTS, Timeout: 14, RetryCnt: 7, RNRRetry: rnr, MaxRdAtomic: 1}
	rtsMask := rdma.AttrState | rdma.AttrSQPSN
	switch typ {
	case rdma.QPTypeRC:
		rtrMask |= rdma.AttrMaxDestRdAtomic | rdma.AttrMinRNRTimer
		rtsMask |= rdma.AttrTimeout | rdma.AttrRetryCnt | rdma.AttrRNRRetry | rdma.AttrMaxQPRdAtomic
	case rdma.QPTypeUD:
		rtrMask = rdma.AttrState
	}
	for _, s := range []struct {
		a QPAttr
		m QPAttrMask
	}{{init, initMask}, {rtr, rtrMask}, {rts, rtsMask}} {
		if err := qp.Modify(&s.a, s.m); err != nil {
			t.Fatalf("QP %d (%s) to %s: %v", qp.Num(), typ, s.a.State, err)
		}
	}
}

// waitCtx is a context for one wait with the generous lab timeout.
func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wcTimeout)
	t.Cleanup(cancel)
	return ctx
}

// waitWCs busy-polls cq until n completions arrived and returns them.
func waitWCs(t testing.TB, cq *CQ, n int) []WC {
	t.Helper()
	wcs := make([]WC, n)
	got, err := cq.BusyPoll(waitCtx(t), wcs, n)
	if err != nil {
		t.Fatalf("waiting for %d completions on %s (got %d: %+v): %v", n, cq.obj.name, got, wcs[:got], err)
	}
	return wcs[:got]
}

// waitOK waits for n completions and fails the test on any error status.
func waitOK(t testing.TB, cq *CQ, n int) []WC {
	t.Helper()
	wcs := waitWCs(t, cq, n)
	for _, wc := range wcs {
		if err := wc.Err(); err != nil {
			t.Fatalf("completion: %v", err)
		}
	}
	return wcs
}

// noMoreWCs checks that nothing else completes on cq for a while.
func noMoreWCs(t testing.TB, cq *CQ, d time.Duration) {
	t.Helper()
	wcs := make([]WC, 8)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if n, _ := cq.BusyPoll(ctx, wcs, 1); n > 0 {
		t.Errorf("unexpected completions on %s: %+v", cq.obj.name, wcs[:n])
	}
}

// expectEvent reads c's async events until one of type typ arrives and
// returns it with the others seen before it.
func expectEvent(t testing.TB, c *Context, typ EventType) (AsyncEvent, []AsyncEvent) {
	t.Helper()
	var before []AsyncEvent
	timeout := time.After(wcTimeout)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				t.Fatalf("event channel closed waiting for %s (err %v); saw %v", typ, c.EventsErr(), before)
			}
			if ev.Type == typ {
				return ev, before
			}
			before = append(before, ev)
		case <-timeout:
			t.Fatalf("no %s event in %v; saw %v", typ, wcTimeout, before)
		}
	}
}

// drainEvents returns the events that arrive within d.
func drainEvents(c *Context, d time.Duration) []AsyncEvent {
	var got []AsyncEvent
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-c.Events():
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-timeout:
			return got
		}
	}
}

// sge is the whole of n bytes at off in mr.
func sge(mr *MR, off uint64, n uint32) []SGE { return []SGE{{MR: mr, Offset: off, Length: n}} }

// fill writes a recognizable pattern (seeded by seed) over b.
func fill(b []byte, seed byte) {
	for i := range b {
		b[i] = seed + byte(i*7)
	}
}
