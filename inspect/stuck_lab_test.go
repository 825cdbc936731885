//go:build lab

package inspect

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/verbscope/verbscope/counters"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// rcPair is two RC QPs of this process on the lab device, connected to
// each other (loopback on rxe0), with one CQ and a buffer for A's sends.
type rcPair struct {
	a, b *verbs.QP
	cq   *verbs.CQ
	mr   *verbs.MR
}

// connectedPair opens the lab device (closed at test end: Close destroys
// the QPs, CQ, MR and PD, children first) and walks two RC QPs to RTS
// against each other with rc_pingpong's values, except A's timeout
// (ib_qp_attr.timeout: 4.096 µs × 2^timeout per try, ibv_modify_qp(3))
// and retry_cnt (rxe retries for ever at 7, rxe_comp.c).
func connectedPair(t *testing.T, timeout, retries uint8) *rcPair {
	t.Helper()
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	ctx, err := verbs.Open(labkit.Env(t, "LAB_DEV"))
	must("open", err)
	t.Cleanup(func() { ctx.Close() })
	idx, err := strconv.Atoi(labkit.Env(t, "LAB_GID_INDEX"))
	must("LAB_GID_INDEX", err)
	gid, err := ctx.QueryGID(1, idx)
	must("QueryGID", err)
	pd, err := ctx.AllocPD()
	must("AllocPD", err)
	p := &rcPair{}
	p.cq, err = ctx.CreateCQ(16, nil, 0)
	must("CreateCQ", err)
	p.mr, err = pd.RegMR(4096, rdma.AccessLocalWrite)
	must("RegMR", err)
	caps := verbs.QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}
	for _, qp := range []**verbs.QP{&p.a, &p.b} {
		*qp, err = pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: p.cq, RecvCQ: p.cq, Cap: caps})
		must("CreateQP", err)
	}
	for _, x := range []struct {
		qp, peer         *verbs.QP
		timeout, retries uint8
	}{{p.a, p.b, timeout, retries}, {p.b, p.a, 14, 7}} {
		steps := []struct {
			attr verbs.QPAttr
			mask rdma.QPAttrMask
		}{
			{verbs.QPAttr{State: rdma.QPStateInit, Port: 1}, rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags},
			{verbs.QPAttr{State: rdma.QPStateRTR, PathMTU: rdma.MTU1024, DestQPN: x.peer.Num(), MaxDestRdAtomic: 1, MinRNRTimer: 12,
				AH: verbs.AHAttr{IsGlobal: true, PortNum: 1, GRH: verbs.GlobalRoute{DGID: gid.GID, SGIDIndex: uint8(idx), HopLimit: 1}}},
				rdma.AttrState | rdma.AttrAV | rdma.AttrPathMTU | rdma.AttrDestQPN | rdma.AttrRQPSN | rdma.AttrMaxDestRdAtomic | rdma.AttrMinRNRTimer},
			{verbs.QPAttr{State: rdma.QPStateRTS, Timeout: x.timeout, RetryCnt: x.retries, RNRRetry: 7, MaxRdAtomic: 1},
				rdma.AttrState | rdma.AttrSQPSN | rdma.AttrTimeout | rdma.AttrRetryCnt | rdma.AttrRNRRetry | rdma.AttrMaxQPRdAtomic},
		}
		for _, s := range steps {
			must("QP "+strconv.Itoa(int(x.qp.Num()))+" to "+s.attr.State.String(), x.qp.Modify(&s.attr, s.mask))
		}
	}
	return p
}

// stuckLog keeps, from a Watcher's frames, every stuck alert and the
// state each watched QP was in when it was first flagged.
type stuckLog struct {
	mu     sync.Mutex
	frames int
	state  map[uint32]QPState // the latest state seen, by lqpn
	flags  map[uint32]QPAlert // the first alert of each QP
	// stateAtFlag is the QP's state in the frame that first flagged it.
	stateAtFlag map[uint32]QPState
	retries     bool // the port's retry counters rose while watching
	firstRetry  map[string]uint64
	done        chan struct{}
}

func watchStuck(w *Watcher, dev string) *stuckLog {
	l := &stuckLog{state: map[uint32]QPState{}, flags: map[uint32]QPAlert{}, stateAtFlag: map[uint32]QPState{}, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for f := range w.Frames() {
			if f.Snapshot == nil {
				continue
			}
			l.mu.Lock()
			l.frames++
			for _, q := range f.Snapshot.QPs {
				if q.DevName == dev {
					l.state[q.LQPN] = q.State
				}
			}
			for _, a := range f.Update.Stuck {
				if _, ok := l.flags[a.Key.ID]; !ok && a.Key.Dev == dev {
					l.flags[a.Key.ID], l.stateAtFlag[a.Key.ID] = a, l.state[a.Key.ID]
				}
			}
			for _, pc := range f.Snapshot.PortCounters {
				if pc.DevName != dev {
					continue
				}
				retrying, gaveUp := counters.RetryCounters(driverByName(dev))
				for _, name := range append(retrying, gaveUp...) {
					v, ok := findCounter(pc.Counters, name)
					if !ok {
						continue
					}
					if l.firstRetry == nil {
						l.firstRetry = map[string]uint64{}
					}
					if b, seen := l.firstRetry[name]; !seen {
						l.firstRetry[name] = v
					} else if v > b {
						l.retries = true
					}
				}
			}
			l.mu.Unlock()
		}
	}()
	return l
}

func (l *stuckLog) with(fn func(*stuckLog) bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return fn(l)
}

// watchInterval is the lab watch's pause: three still readings (the
// default StallPolls) take under a second plus the dumps.
const watchInterval = 250 * time.Millisecond

// TestStuckIdlePairBesidePingpong: a connected pair of this process with
// no traffic, beside a busy ibv_rc_pingpong pair whose traffic (and
// retries, under TCG) moves the port's shared retry counters, is never
// flagged stuck over 12 readings; neither is the pingpong pair, whose
// PSNs keep moving. (The log says whether the port's counters rose, as
// they did when the old judgement flagged the idle pair.)
func TestStuckIdlePairBesidePingpong(t *testing.T) {
	labkit.Clean(t)
	gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
	c := dial(t)
	waitIdle(t, c)
	idle := connectedPair(t, 14, 7)
	srv := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "1000000")
	labkit.WaitFor(t, labkit.Step, "the server's QP to exist", func() bool { return len(qpsOf(t, c, srv.PID())) == 1 })
	cli := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "1000000", ip)
	labkit.WaitFor(t, labkit.Step, "the pingpong pair to reach RTS", func() bool {
		return allInState(qpsOf(t, c, srv.PID()), 1, rdma.QPStateRTS) && allInState(qpsOf(t, c, cli.PID()), 1, rdma.QPStateRTS)
	})
	w := Watch(context.Background(), c, WatchOptions{Interval: watchInterval})
	log := watchStuck(w, labkit.Env(t, "LAB_DEV"))
	// 12 readings are four times StallPolls: room for the old judgement
	// (the port's counters rising, the pair's PSNs still) to misfire. A
	// reading of rxe0's counters and QPs beside a busy pingpong takes
	// about 2 s under TCG; 3 minutes is over 3x 12 of them.
	labkit.WaitFor(t, labkit.Run, "12 readings", func() bool {
		return log.with(func(l *stuckLog) bool { return l.frames >= 12 })
	})
	w.Close()
	<-log.done
	log.mu.Lock()
	defer log.mu.Unlock()
	t.Logf("%d frames; the port's retry counters rose while watching: %v (first %v)", log.frames, log.retries, log.firstRetry)
	for _, qp := range []*verbs.QP{idle.a, idle.b} {
		if s := log.state[qp.Num()]; s != rdma.QPStateRTS {
			t.Errorf("idle QP %d last seen in %v, want RTS", qp.Num(), s)
		}
	}
	for n, a := range log.flags {
		t.Errorf("QP %d flagged stuck (%s): %s", n, log.stateAtFlag[n], a.Evidence)
	}
	if out := srv.Output() + cli.Output(); len(out) > 0 {
		t.Logf("pingpong so far:\n%s", out)
	}
}

// TestStuckRetryingBeforeErr: A sends to B after B was moved to ERR; B
// drops every packet, so A retries (timeout 20: 4.3 s per try; retry_cnt
// 6: seven tries, ~30 s before A gives up and goes to ERR). The watch flags A
// stuck while A is still in RTS, with B as the evidence, and A then
// reaches ERR with a retry-exceeded completion.
func TestStuckRetryingBeforeErr(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	c := dial(t)
	waitIdle(t, c)
	p := connectedPair(t, 20, 6)
	w := Watch(context.Background(), c, WatchOptions{Interval: watchInterval, Snapshot: SnapshotOptions{NoCounters: true}})
	defer w.Close()
	log := watchStuck(w, dev)
	// The Tracker must see A in RTS before the send, so that the send
	// is a move of its PSNs (a dump takes well under a second).
	labkit.WaitFor(t, labkit.Step, "A in RTS in a frame", func() bool {
		return log.with(func(l *stuckLog) bool { return l.state[p.a.Num()] == rdma.QPStateRTS })
	})
	if err := p.b.Modify(&verbs.QPAttr{State: rdma.QPStateErr}, rdma.AttrState); err != nil {
		t.Fatalf("B to ERR: %v", err)
	}
	wr := verbs.SendWR{WRID: 7, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: []verbs.SGE{{MR: p.mr, Length: 64}}}
	if err := p.a.PostSend([]verbs.SendWR{wr}); err != nil {
		t.Fatalf("post send on A: %v", err)
	}
	// A's retries last ~30 s (7 × 4.3 s); the flag needs a move and three
	// still readings (about 1 s, a few under TCG); waiting up to 30 s
	// leaves 3× headroom, and being flagged in RTS is asserted below.
	labkit.WaitFor(t, labkit.Step, "A flagged stuck", func() bool {
		return log.with(func(l *stuckLog) bool { _, ok := l.flags[p.a.Num()]; return ok })
	})
	log.mu.Lock()
	a, st := log.flags[p.a.Num()], log.stateAtFlag[p.a.Num()]
	log.mu.Unlock()
	t.Logf("A (QP %d) flagged in %s: %s", p.a.Num(), st, a.Evidence)
	if st != rdma.QPStateRTS {
		t.Errorf("A was in %v when flagged, want RTS (before ERR)", st)
	}
	if a.Peer.ID != p.b.Num() || a.PeerState != rdma.QPStateErr || a.Unacked == 0 || a.Evidence == "" {
		t.Errorf("A's alert: peer %v in %v, %d unacked, evidence %q; want B (%d) in ERR, PSNs unacked", a.Peer, a.PeerState, a.Unacked, a.Evidence, p.b.Num())
	}
	// Then the retries run out: A's send completes with RETRY_EXC_ERR and
	// A goes to ERR. 30 s of retries; 120 s is over 3× that.
	// (Polled every 20 ms, not spun: a spinning poll would take a vCPU
	// from the watch.)
	wcs := make([]verbs.WC, 1)
	labkit.WaitFor(t, labkit.Run, "A's send to complete", func() bool {
		n, err := p.cq.Poll(wcs)
		if err != nil {
			t.Fatalf("poll A's CQ: %v", err)
		}
		return n == 1
	})
	if wcs[0].Status != rdma.WCRetryExcErr {
		t.Errorf("A's send completed with %v, want %v", wcs[0].Status, rdma.WCRetryExcErr)
	}
	labkit.WaitFor(t, labkit.Step, "A in ERR in a frame", func() bool {
		return log.with(func(l *stuckLog) bool { return l.state[p.a.Num()] == rdma.QPStateErr })
	})
}
