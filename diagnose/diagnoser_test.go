package diagnose

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// reading is a snapshot of rxe0 port 1 with its RNR and timeout counters
// at the given values and the given QPs.
func reading(i int, rnr, timeouts uint64, qps ...inspect.QP) Reading {
	s := &inspect.Snapshot{Time: t0.Add(time.Duration(i) * time.Second), QPs: qps,
		Ports: []inspect.Port{{DevName: "rxe0", Port: 1, State: rdma.PortStateActive}},
		PortCounters: []inspect.PortCounters{{DevName: "rxe0", Port: 1, Counters: []inspect.HWCounter{
			{Name: "rcvd_rnr_err", Value: rnr}, {Name: "completer_retry_err", Value: timeouts}, {Name: "sent_pkts", Value: uint64(i) * 1000}}}}}
	return Reading{Snapshot: s}
}

// fakePeers answers every question with the same peer.
type fakePeers struct {
	p, idle *PeerQP
	asked   int
}

func (f *fakePeers) Find(_ context.Context, q *inspect.QP, dgid string) PeerAnswer {
	f.asked++
	a := PeerAnswer{Asked: []string{"10.0.1.2:9879"}}
	if f.p != nil && f.p.LQPN == q.RQPN {
		a.QP, a.ByNumbers = f.p, true
	}
	if f.idle != nil && f.idle.LQPN == q.RQPN {
		a.QP, a.ByNumbers = f.idle, true
	}
	return a
}
func (f *fakePeers) Forget() {}

type step struct {
	rnr, timeouts uint64
	qps           []inspect.QP
}

func run(d *Diagnoser, steps []step) [][]string {
	var out [][]string
	for i, s := range steps {
		var got []string
		for _, v := range d.Observe(context.Background(), reading(i, s.rnr, s.timeouts, s.qps...)) {
			got = append(got, v.Summary())
		}
		out = append(out, got)
	}
	return out
}

func TestDiagnoserAcrossHosts(t *testing.T) {
	stuck := rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500)
	idle := rcQP("rxe0", 19, 20, rdma.QPStateRTS, 7, 9)
	// Two hosts number their QPs alike: qp 17 talks to qp 17 there.
	self := rcQP("rxe0", 17, 17, rdma.QPStateRTS, 101, 500)
	busy := func(i uint32) inspect.QP { return rcQP("rxe0", 21, 22, rdma.QPStateRTS, 1000+i*50, 2000+i*50) }
	for _, tc := range []struct {
		name  string
		peers *fakePeers
		steps []step
		want  [][]string
	}{
		{"rnr alone on the port, no peers", nil,
			[]step{{0, 0, []inspect.QP{stuck, busy(0)}}, {130, 0, []inspect.QP{stuck, busy(1)}}, {260, 0, []inspect.QP{stuck, busy(2)}},
				{390, 0, []inspect.QP{stuck, busy(3)}}, {520, 0, []inspect.QP{stuck, busy(4)}}},
			[][]string{nil, nil, nil, {"rxe0 qp 17 rnr (probably: RNR NAKs rose: the peer has no receive posted)"},
				{"rxe0 qp 17 rnr (probably: RNR NAKs rose: the peer has no receive posted)"}}},
		{"rnr with an idle neighbour, no peers: both candidates", nil,
			[]step{{0, 0, []inspect.QP{stuck, idle}}, {130, 0, []inspect.QP{stuck, idle}}, {260, 0, []inspect.QP{stuck, idle}}, {390, 0, []inspect.QP{stuck, idle}}},
			[][]string{nil, nil, nil, {"rxe0 qp 17 rnr (probably: RNR NAKs rose: the peer has no receive posted)",
				"rxe0 qp 19 rnr (probably: RNR NAKs rose: the peer has no receive posted)"}}},
		{"rnr with an idle neighbour, the peer read", &fakePeers{p: peer("RTS", 18, 17, 500, 100)},
			[]step{{0, 0, []inspect.QP{stuck, idle}}, {130, 0, []inspect.QP{stuck, idle}}, {260, 0, []inspect.QP{stuck, idle}}, {390, 0, []inspect.QP{stuck, idle}}},
			[][]string{nil, nil, nil, {"rxe0 qp 17 rnr (probably: peer 10.0.1.2:9879 qp 18 has no receive posted)",
				"rxe0 qp 19 rnr (probably: RNR NAKs rose: the peer has no receive posted)"}}},
		{"rnr with an idle neighbour, both peers read", &fakePeers{p: peer("RTS", 18, 17, 500, 100), idle: peer("RTS", 20, 19, 9, 7)},
			[]step{{0, 0, []inspect.QP{stuck, idle}}, {130, 0, []inspect.QP{stuck, idle}}, {260, 0, []inspect.QP{stuck, idle}}, {390, 0, []inspect.QP{stuck, idle}}},
			[][]string{nil, nil, nil, {"rxe0 qp 17 rnr (probably: peer 10.0.1.2:9879 qp 18 has no receive posted)"}}},
		{"the peer on another host has the QP's own number", &fakePeers{p: peer("RTS", 17, 17, 500, 100)},
			[]step{{0, 0, []inspect.QP{self}}, {130, 0, []inspect.QP{self}}, {260, 0, []inspect.QP{self}}, {390, 0, []inspect.QP{self}}},
			[][]string{nil, nil, nil, {"rxe0 qp 17 rnr (probably: peer 10.0.1.2:9879 qp 17 has no receive posted)"}}},
		{"the PSNs move again: no verdict", nil,
			[]step{{0, 0, []inspect.QP{stuck}}, {130, 0, []inspect.QP{stuck}}, {260, 0, []inspect.QP{stuck}}, {390, 0, []inspect.QP{rcQP("rxe0", 17, 18, rdma.QPStateRTS, 102, 500)}}},
			[][]string{nil, nil, nil, nil}},
		{"an idle pair, counters still: nothing asked", &fakePeers{},
			[]step{{5, 5, []inspect.QP{idle}}, {5, 5, []inspect.QP{idle}}, {5, 5, []inspect.QP{idle}}, {5, 5, []inspect.QP{idle}}, {5, 5, []inspect.QP{idle}}},
			[][]string{nil, nil, nil, nil, nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			if tc.peers != nil {
				cfg.Peers = tc.peers
			}
			got := run(New(cfg), tc.steps)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("verdicts by reading (-want +got):\n%s", diff)
			}
			if tc.peers != nil && tc.want[len(tc.want)-1] == nil && tc.peers.asked != 0 {
				t.Errorf("asked the peers %d times with nothing to judge", tc.peers.asked)
			}
		})
	}
}

// A failed QP is judged each reading while its failure is young (the
// peer's exporter may show the peer's ERR a reading late), then once per
// state, not every reading.
func TestDiagnoserSettlesFailed(t *testing.T) {
	p := &fakePeers{p: peer("RTS", 18, 17, 500, 101)}
	d := New(Config{Peers: p})
	q := rcQP("rxe0", 17, 18, rdma.QPStateErr, 101, 500)
	judge := func(at time.Duration) []Verdict {
		r := reading(0, 0, 0, q)
		r.Snapshot.Time = t0.Add(at)
		r.Update.Failed = []inspect.QPAlert{{Key: key(&q), State: q.State, Since: t0}}
		return d.Observe(context.Background(), r)
	}
	if vs := judge(0); len(vs) != 1 || vs[0].Cause != CauseFlushed {
		t.Fatalf("with the peer still in RTS: got %+v, want one flushed verdict", vs)
	}
	p.p = peer("ERR", 18, 17, 500, 101) // the peer's exporter caught up
	for i := 1; i <= 4; i++ {
		if vs := judge(settleAfter * time.Duration(i) / 2); len(vs) != 1 || vs[0].Cause != CauseRemoteAccess {
			t.Fatalf("reading %d, peer in ERR: got %+v, want one remote_access verdict", i, vs)
		}
	}
	asked := p.asked
	for i := 3; i <= 6; i++ {
		judge(settleAfter * time.Duration(i))
	}
	if p.asked != asked {
		t.Errorf("asked the peer %d more times after the verdict settled, want none", p.asked-asked)
	}
}

// While nothing retries, fails or outlives its process, a reading costs
// the comparison of the ports' counters: no allocation, no peer asked.
func TestDiagnoserIdleCost(t *testing.T) {
	p := &fakePeers{}
	d := New(Config{Peers: p})
	idle := rcQP("rxe0", 19, 20, rdma.QPStateRTS, 7, 9)
	rs := []Reading{reading(0, 5, 5, idle), reading(1, 5, 5, idle)}
	d.Observe(context.Background(), rs[0])
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		i++
		if vs := d.Observe(context.Background(), rs[i%2]); vs != nil {
			t.Fatalf("idle reading: %v", vs)
		}
	})
	if allocs != 0 || p.asked != 0 {
		t.Errorf("an idle reading allocated %v times and asked the peers %d times; want 0 and 0", allocs, p.asked)
	}
}

// A peer on this host that was destroyed: the Tracker's history of the
// QP numbered as the stuck QP's remote one ends gone, so the verdict is
// peer_gone (probable: a QP of another host may share the number), not
// no_response; a history that does not end gone says nothing, nor one
// that ended before the stuck QP was connected.
func TestDiagnoserPeerGoneOnThisHost(t *testing.T) {
	stuck := rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500)
	goneAt := t0.Add(-time.Minute)
	connected := t0.Add(-time.Hour) // when qp 17 went to RTS
	for _, tc := range []struct {
		name    string
		history []inspect.StateEvent
		want    string
	}{
		{"destroyed", []inspect.StateEvent{{Time: t0.Add(-time.Hour), State: rdma.QPStateRTS}, {Time: goneAt, State: rdma.QPStateRTS, Gone: true, SQPSN: 500, RQPSN: 101}},
			"rxe0 qp 17 peer_gone (probably: peer this host qp 18 was destroyed)"},
		{"still there as far as history goes", []inspect.StateEvent{{Time: goneAt, State: rdma.QPStateRTS}},
			"rxe0 qp 17 no_response (probably: retransmissions get no answer)"},
		{"a QP of that number gone before qp 17 connected: not its peer", []inspect.StateEvent{{Time: connected.Add(-time.Hour), State: rdma.QPStateRTS},
			{Time: connected.Add(-time.Minute), State: rdma.QPStateRTS, Gone: true}},
			"rxe0 qp 17 no_response (probably: retransmissions get no answer)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := New(Config{})
			var got []Verdict
			for i, timeouts := range []uint64{0, 16, 32, 48} {
				r := reading(i, 0, timeouts, stuck)
				r.History = map[inspect.Key][]inspect.StateEvent{{Kind: rdma.KindQP, Dev: "rxe0", ID: 18}: tc.history,
					key(&stuck): {{Time: t0.Add(-2 * time.Hour), State: rdma.QPStateInit}, {Time: connected, State: rdma.QPStateRTS}}}
				got = d.Observe(context.Background(), r)
			}
			if len(got) != 1 || got[0].Summary() != tc.want {
				var s []string
				for _, v := range got {
					s = append(s, v.Summary())
				}
				t.Fatalf("verdicts %q, want %q", s, tc.want)
			}
			if v := got[0]; v.Cause == CausePeerGone && (v.Peer == nil || !v.Peer.Gone || !v.Peer.GoneAt.Equal(goneAt) || len(v.Fix) == 0) {
				t.Errorf("peer %+v, fix %q: want qp 18 gone at %v and a fix", v.Peer, v.Fix, goneAt)
			}
		})
	}
}
