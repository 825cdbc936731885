package inspect

import (
	"context"
	"fmt"
	"github.com/verbscope/verbscope/rdma"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// recorded returns a recorded scenario's snapshot taken at time at.
func recorded(t *testing.T, name string, at time.Time) *Snapshot {
	t.Helper()
	s, err := replayConn(t, loadRecording(t, name)).Snapshot(context.Background(), SnapshotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Time = at
	return s
}

// clone copies a snapshot deeply enough to change its QPs (marked
// changed) and counters.
func clone(s *Snapshot, at time.Time) *Snapshot {
	c := *s
	c.Time = at
	c.QPs = slices.Clone(s.QPs)
	c.MarkChanged(rdma.KindQP)
	c.PortCounters = slices.Clone(s.PortCounters)
	for i := range c.PortCounters {
		c.PortCounters[i].Counters = slices.Clone(s.PortCounters[i].Counters)
	}
	return &c
}

func qpIndex(t *testing.T, s *Snapshot, lqpn uint32) *QP {
	for i := range s.QPs {
		if s.QPs[i].LQPN == lqpn {
			return &s.QPs[i]
		}
	}
	t.Fatalf("no QP %d", lqpn)
	return nil
}

func setCounter(s *Snapshot, name string, v uint64) {
	for i, c := range s.PortCounters[0].Counters {
		if c.Name == name {
			s.PortCounters[0].Counters[i].Value = v
		}
	}
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// TestTrackerLifecycle follows the pingpong server's QP: it appears in
// INIT (recorded), goes to RTS, and disappears, and its history says so
// with the snapshot times; the other objects appear and disappear with it.
func TestTrackerLifecycle(t *testing.T) {
	idle := recorded(t, "idle", at(0))
	init := recorded(t, "rc-init", at(1))
	tr := NewTracker(TrackerConfig{})
	u := tr.Update(idle)
	if len(u.Appeared) != 3 { // the kernel's GSI QP, CQ and PD
		t.Errorf("first update: %d appeared, want 3: %+v", len(u.Appeared), u.Appeared)
	}
	u = tr.Update(init)
	pp := func(kind Kind, id uint32) Change {
		return Change{Key: Key{kind, "rxe0", id}, PID: 169, Comm: "ibv_rc_pingpong", TGID: 169, Owner: OwnerLive}
	}
	want := []Change{pp(rdma.KindCQ, 1), pp(rdma.KindCtx, 0), pp(rdma.KindMR, init.MRs[0].MRN), pp(rdma.KindPD, 1), pp(rdma.KindQP, 17)}
	if diff := cmp.Diff(want, u.Appeared); diff != "" {
		t.Errorf("appeared (-want +got):\n%s", diff)
	}
	rts := clone(init, at(2))
	q := qpIndex(t, rts, 17)
	q.State, q.SQPSN, q.RQPSN = rdma.QPStateRTS, 100, 200
	u = tr.Update(rts)
	key := Key{rdma.KindQP, "rxe0", 17}
	if diff := cmp.Diff([]StateChange{{Key: key, From: rdma.QPStateInit, To: rdma.QPStateRTS, Time: at(2), Port: 1, Type: rdma.QPTypeRC}}, u.StateChanges); diff != "" {
		t.Errorf("state changes (-want +got):\n%s", diff)
	}
	u = tr.Update(clone(idle, at(3)))
	if len(u.Disappeared) != 5 || u.Disappeared[4].Key != key {
		t.Errorf("disappeared: %+v", u.Disappeared)
	}
	wantHist := []StateEvent{
		{Time: at(1), State: rdma.QPStateInit},
		{Time: at(2), State: rdma.QPStateRTS, SQPSN: 100, RQPSN: 200},
		{Time: at(3), State: rdma.QPStateRTS, Gone: true, SQPSN: 100, RQPSN: 200},
	}
	if diff := cmp.Diff(wantHist, tr.History(key)); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	if h := tr.History(Key{rdma.KindQP, "rxe0", 1}); len(h) != 1 || h[0].State != rdma.QPStateRTS || h[0].Time != at(0) {
		t.Errorf("GSI QP history: %+v", h)
	}
}

// TestTrackerFailedAndReuse: a QP in ERR is reported on every update; a
// QP number taken over by another process is a new QP.
func TestTrackerFailedAndReuse(t *testing.T) {
	init := recorded(t, "rc-init", at(0))
	tr := NewTracker(TrackerConfig{GoneRetention: 1})
	tr.Update(init)
	s := clone(init, at(1))
	qpIndex(t, s, 17).State = rdma.QPStateErr
	u := tr.Update(s)
	key := Key{rdma.KindQP, "rxe0", 17}
	wantFailed := []QPAlert{{Key: key, PID: 169, Comm: "ibv_rc_pingpong", State: rdma.QPStateErr, Since: at(1)}}
	if diff := cmp.Diff(wantFailed, u.Failed); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	u = tr.Update(clone(s, at(2)))
	if len(u.Failed) != 1 || u.Failed[0].Since != at(1) {
		t.Errorf("failed on the next update: %+v", u.Failed)
	}
	s = clone(s, at(3))
	q := qpIndex(t, s, 17)
	q.PID, q.State = 4242, rdma.QPStateInit
	u = tr.Update(s)
	if len(u.Disappeared) != 1 || len(u.Appeared) != 1 || u.Appeared[0].PID != 4242 || len(u.Failed) != 0 {
		t.Errorf("reuse: appeared %+v disappeared %+v failed %+v", u.Appeared, u.Disappeared, u.Failed)
	}
	wantHist := []StateEvent{{Time: at(0), State: rdma.QPStateInit}, {Time: at(1), State: rdma.QPStateErr},
		{Time: at(3), State: rdma.QPStateErr, Gone: true}, {Time: at(3), State: rdma.QPStateInit}}
	if diff := cmp.Diff(wantHist, tr.History(key)); diff != "" {
		t.Errorf("history across reuse (-want +got):\n%s", diff)
	}
	// GoneRetention 1: QPs that vanish later push this history out.
	tr.Update(recorded(t, "rping", at(4)))
	tr.Update(recorded(t, "idle", at(5)))
	if h := tr.History(key); len(h) != 0 {
		t.Errorf("history of an old vanished QP was kept: %+v", h)
	}
	if h := tr.History(Key{rdma.KindQP, "rxe0", 36}); len(h) != 0 {
		t.Errorf("history of QP 36 was kept: %+v", h)
	}
	want37 := []StateEvent{{Time: at(4), State: rdma.QPStateRTS, SQPSN: 0xecb461, RQPSN: 0xb5594a},
		{Time: at(5), State: rdma.QPStateRTS, Gone: true, SQPSN: 0xecb461, RQPSN: 0xb5594a}}
	if diff := cmp.Diff(want37, tr.History(Key{rdma.KindQP, "rxe0", 37})); diff != "" {
		t.Errorf("history of the last vanished QP (-want +got):\n%s", diff)
	}
}

// TestTrackerStuck judges stuck QPs only on their own evidence, on the
// rping recording: QPs 36 and 37 connected to each other in RTS, 36's
// sq-psn equal to 37's rq-psn and the other way round, as rxe reports
// an idle pair. Each case changes the readings 1 to 4 (StallPolls 3).
func TestTrackerStuck(t *testing.T) {
	base := recorded(t, "rping", at(0))
	q36 := qpIndex(t, base, 36)
	sq36, rq37 := q36.SQPSN, qpIndex(t, base, 37).RQPSN
	qp36, qp37 := Key{rdma.KindQP, "rxe0", 36}, Key{rdma.KindQP, "rxe0", 37}
	// sends moves 36's sq-psn by n from reading 1 on; accepted moves
	// 37's rq-psn as far.
	sends := func(s *Snapshot, n uint32) { qpIndex(t, s, 36).SQPSN = (sq36 + n) & psnMask }
	accepted := func(s *Snapshot, n uint32) { qpIndex(t, s, 37).RQPSN = (rq37 + n) & psnMask }
	// ownCounter binds QP 37 to a per-QP counter on which name reads 1
	// at reading 1 and rises by 2 each reading after.
	ownCounter := func(s *Snapshot, name string, i int) {
		s.QPCounters = []QPCounter{{Object: Object{DevName: "rxe0"}, Port: 1, ID: 3, LQPNs: []uint32{37},
			Counters: []HWCounter{{name, uint64(1 + max(0, i-1)*2)}}}}
	}
	for _, tc := range []struct {
		name string
		// driver is what TrackerConfig.Driver says of rxe0 ("" leaves
		// it nil: rxe by the name; "-" says not known).
		driver string
		// first changes reading 0; next reading i (1 to 4).
		first func(s *Snapshot)
		next  func(s *Snapshot, i int)
		want  []QPAlert
	}{
		{name: "an idle pair while the port's retry counters rise (a busy neighbour retrying)",
			next: func(s *Snapshot, i int) {
				setCounter(s, "retry_exceeded_err", uint64(i*2))
				setCounter(s, "completer_retry_err", uint64(4+i))
			}},
		{name: "sends its peer accepted",
			next: func(s *Snapshot, i int) { sends(s, 3); accepted(s, 3) }},
		{name: "sends its peer never accepted",
			next: func(s *Snapshot, i int) { sends(s, 3) },
			want: []QPAlert{{Key: qp36, PID: 204, Comm: "rping", State: rdma.QPStateRTS, Since: at(1), Polls: 3,
				Peer: qp37, PeerState: rdma.QPStateRTS, Unacked: 3,
				Evidence: fmt.Sprintf("sent up to sq-psn %d, but its peer rxe0 qp 37 (RTS) accepted only up to rq-psn %d: 3 PSNs unacknowledged, PSNs still for 3 readings since 12:00:01", sq36+3, rq37)}}},
		{name: "retries that rewind its sq-psn (go-back-N) are no progress",
			next: func(s *Snapshot, i int) {
				sends(s, 3)
				if i == 3 {
					sends(s, 1)
				}
			},
			want: []QPAlert{{Key: qp36, PID: 204, Comm: "rping", State: rdma.QPStateRTS, Since: at(1), Polls: 3,
				Peer: qp37, PeerState: rdma.QPStateRTS, Unacked: 3}}},
		{name: "the peer moved to ERR; sq-psn wraps",
			first: func(s *Snapshot) {
				qpIndex(t, s, 36).SQPSN, qpIndex(t, s, 37).RQPSN = psnMask-1, psnMask-1
			},
			next: func(s *Snapshot, i int) {
				qpIndex(t, s, 36).SQPSN = 1
				qpIndex(t, s, 37).RQPSN = psnMask - 1
				qpIndex(t, s, 37).State = rdma.QPStateErr
			},
			want: []QPAlert{{Key: qp36, PID: 204, Comm: "rping", State: rdma.QPStateRTS, Since: at(1), Polls: 3,
				Peer: qp37, PeerState: rdma.QPStateErr, Unacked: 3}}},
		{name: "ahead of its peer from the first reading, never moving (PSNs set apart)",
			first: func(s *Snapshot) { sends(s, 5) },
			next:  func(s *Snapshot, i int) { sends(s, 5) }},
		{name: "a peer on another host",
			next: func(s *Snapshot, i int) { sends(s, 3); qpIndex(t, s, 36).RQPN = 99 }},
		{name: "a remote number that is its own: the peer is on another host, not itself",
			first: func(s *Snapshot) { qpIndex(t, s, 36).RQPN = 36 },
			next: func(s *Snapshot, i int) {
				sends(s, 3)
				qpIndex(t, s, 36).RQPN = 36
				qpIndex(t, s, 36).RQPSN = sq36
			}},
		{name: "a QP number that points back elsewhere is no peer",
			next: func(s *Snapshot, i int) { sends(s, 3); qpIndex(t, s, 37).RQPN = 40 }},
		// The recording is rxe's; its device read as mlx5's (the
		// Driver the caller gives) judges by mlx5's names.
		{name: "its own per-QP retry counter rises (mlx5's timeout retry on an mlx5 device)", driver: "mlx5",
			next: func(s *Snapshot, i int) { ownCounter(s, "local_ack_timeout_err", i) },
			want: []QPAlert{{Key: qp37, PID: 202, Comm: "rping", State: rdma.QPStateRTS, Since: at(0), Polls: 4,
				Retries: map[string]uint64{"local_ack_timeout_err": 6}}}},
		{name: "its own per-QP retry counter rises (rxe's timeout retry on rxe0, the driver by its name)",
			next: func(s *Snapshot, i int) { ownCounter(s, "completer_retry_err", i) },
			want: []QPAlert{{Key: qp37, PID: 202, Comm: "rping", State: rdma.QPStateRTS, Since: at(0), Polls: 4,
				Retries:  map[string]uint64{"completer_retry_err": 6},
				Evidence: "its own retry counters rose (completer_retry_err +6) while its PSNs still for 4 readings since 12:00:00"}}},
		{name: "another driver's name on rxe0 says nothing (mlx5's local_ack_timeout_err)",
			next: func(s *Snapshot, i int) { ownCounter(s, "local_ack_timeout_err", i) }},
		{name: "another driver's name on an mlx5 device says nothing (rxe's completer_retry_err)", driver: "mlx5",
			next: func(s *Snapshot, i int) { ownCounter(s, "completer_retry_err", i) }},
		{name: "hfi1's names on an hfi1 device", driver: "hfi1",
			next: func(s *Snapshot, i int) { ownCounter(s, "RcTimeOut", i) },
			want: []QPAlert{{Key: qp37, PID: 202, Comm: "rping", State: rdma.QPStateRTS, Since: at(0), Polls: 4,
				Retries: map[string]uint64{"RcTimeOut": 6}}}},
		{name: "a counter of requests that gave up is told apart from retries (rxe's retry_exceeded_err)",
			next: func(s *Snapshot, i int) {
				ownCounter(s, "retry_exceeded_err", i)
				s.QPCounters[0].Counters = append(s.QPCounters[0].Counters, HWCounter{"rcvd_rnr_err", uint64(10 + i)})
			},
			want: []QPAlert{{Key: qp37, PID: 202, Comm: "rping", State: rdma.QPStateRTS, Since: at(0), Polls: 4,
				Retries: map[string]uint64{"rcvd_rnr_err": 3}, GaveUp: map[string]uint64{"retry_exceeded_err": 6},
				Evidence: "its own retry counters rose (rcvd_rnr_err +3) and its own counters of requests that gave up rose (retry_exceeded_err +6) while its PSNs still for 4 readings since 12:00:00"}}},
		{name: "a device whose driver is not known is read for every driver's names", driver: "-",
			next: func(s *Snapshot, i int) { ownCounter(s, "local_ack_timeout_err", i) },
			want: []QPAlert{{Key: qp37, PID: 202, Comm: "rping", State: rdma.QPStateRTS, Since: at(0), Polls: 4,
				Retries: map[string]uint64{"local_ack_timeout_err": 6}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := TrackerConfig{StallPolls: 3}
			if tc.driver != "" {
				driver := strings.TrimPrefix(tc.driver, "-")
				cfg.Driver = func(string) string { return driver }
			}
			tr := NewTracker(cfg)
			first := clone(base, at(0))
			if tc.first != nil {
				tc.first(first)
			}
			tr.Update(first)
			var stuck []QPAlert
			for i := 1; i <= 4; i++ {
				s := clone(first, at(i))
				tc.next(s, i)
				stuck = tr.Update(s).Stuck
				if i < 3 && len(stuck) != 0 {
					t.Errorf("reading %d: stuck too early: %+v", i, stuck)
				}
			}
			opts := []cmp.Option{cmpopts.EquateEmpty()}
			if len(tc.want) == 0 || tc.want[0].Evidence == "" {
				opts = append(opts, cmpopts.IgnoreFields(QPAlert{}, "Evidence"))
			}
			if d := cmp.Diff(tc.want, stuck, opts...); d != "" {
				t.Errorf("stuck after 4 readings (-want +got):\n%s", d)
			}
			for _, a := range stuck {
				if a.Evidence == "" {
					t.Errorf("%v: no evidence given", a.Key)
				}
			}
		})
	}
}

// TestTrackerUsage counts objects per process and against device limits.
func TestTrackerUsage(t *testing.T) {
	srq := recorded(t, "srq", at(0))
	// A QP created by another thread of the same process (the kernel
	// records the thread id) still counts for the process.
	srq.QPs[0].PID = 999
	tr := NewTracker(TrackerConfig{Limits: map[string]Limits{"rxe0": {MaxQP: 18, MaxCQ: 1000, MaxSRQ: 1}}})
	u := tr.Update(srq)
	if len(u.Processes) != 1 {
		t.Fatalf("processes: %+v", u.Processes)
	}
	p := u.Processes[0]
	if diff := cmp.Diff(map[Kind]int{rdma.KindQP: 16, rdma.KindCQ: 1, rdma.KindMR: 1, rdma.KindPD: 1, rdma.KindCtx: 1, rdma.KindSRQ: 1}, p.Counts); diff != "" || p.PID != 192 {
		t.Errorf("usage of pid %d (-want +got):\n%s", p.PID, diff)
	}
	var got []string
	for _, l := range u.Limits {
		over := ""
		if l.Over {
			over = " over"
		}
		got = append(got, string(l.Kind)+" "+itoa(l.Count)+"/"+itoa(l.Limit)+over+" top "+itoa(uint64(l.Top.PID)))
	}
	want := []string{"qp 17/18 over top 192", "cq 2/1000 top 192", "srq 1/1 over top 192"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

// TestUsage: usage from a snapshot alone is the Tracker's, and the
// fraction decides what is over. A device with limits that the snapshot
// does not list (removed since its limits were asked) has no usage.
func TestUsage(t *testing.T) {
	srq := recorded(t, "srq", at(0))
	limits := map[string]Limits{"rxe0": {MaxQP: 18, MaxCQ: 1000, MaxSRQ: 1}, "absent0": {MaxPD: 4}}
	u := NewTracker(TrackerConfig{Limits: limits}).Update(srq)
	if diff := cmp.Diff(u.Limits, Usage(srq, limits, 0)); diff != "" {
		t.Errorf("Usage against the Tracker's (-tracker +Usage):\n%s", diff)
	}
	tests := []struct {
		fraction float64
		want     []string
	}{
		{0.9, []string{"rxe0 qp 17/18 over", "rxe0 cq 2/1000", "rxe0 srq 1/1 over"}},
		{0.95, []string{"rxe0 qp 17/18", "rxe0 cq 2/1000", "rxe0 srq 1/1 over"}},
		{0.0001, []string{"rxe0 qp 17/18 over", "rxe0 cq 2/1000 over", "rxe0 srq 1/1 over"}},
	}
	for _, tc := range tests {
		var got []string
		for _, l := range Usage(srq, limits, tc.fraction) {
			s := l.Dev + " " + string(l.Kind) + " " + itoa(l.Count) + "/" + itoa(l.Limit)
			if l.Over {
				s += " over"
			}
			got = append(got, s)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("fraction %v (-want +got):\n%s", tc.fraction, diff)
		}
	}
}

// TestDeadOwners: what /proc says of the pingpong's pid decides whether
// its objects are in Update.Dead; the kernel's GSI QP never is.
func TestDeadOwners(t *testing.T) {
	tests := []struct {
		name   string
		status string // /proc/169/status; empty: no such process
		owner  Owner
		tgid   uint32
	}{
		{"live", "Name:\tibv_rc_pingpong\nState:\tS (sleeping)\nTgid:\t169\nPid:\t169\n", OwnerLive, 169},
		{"zombie", "Name:\tibv_rc_pingpong\nState:\tZ (zombie)\nTgid:\t169\nPid:\t169\n", OwnerZombie, 169},
		{"gone", "", OwnerGone, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := replayConn(t, loadRecording(t, "rc-init"))
			proc := t.TempDir()
			if tc.status != "" {
				dir := filepath.Join(proc, "169")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "status"), []byte(tc.status), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c.SetProcRoot(proc)
			s, err := c.Snapshot(context.Background(), SnapshotOptions{})
			if err != nil {
				t.Fatal(err)
			}
			u := NewTracker(TrackerConfig{}).Update(s)
			var want []Change
			if tc.owner.Dead() {
				for _, k := range []Kind{rdma.KindCQ, rdma.KindCtx, rdma.KindMR, rdma.KindPD, rdma.KindQP} {
					id := uint32(1)
					switch k {
					case rdma.KindCtx:
						id = 0
					case rdma.KindMR:
						id = s.MRs[0].MRN
					case rdma.KindQP:
						id = 17
					}
					want = append(want, Change{Key: Key{k, "rxe0", id}, PID: 169, TGID: tc.tgid, Owner: tc.owner})
				}
			}
			if diff := cmp.Diff(want, u.Dead); diff != "" {
				t.Errorf("dead (-want +got):\n%s", diff)
			}
			if got := qpIndex(t, s, 17).Owner; got != tc.owner {
				t.Errorf("QP 17 owner %v, want %v", got, tc.owner)
			}
			if got := qpIndex(t, s, 1).Owner; got != OwnerKernel {
				t.Errorf("GSI QP owner %v, want kernel", got)
			}
		})
	}
}

// TestTrackerLoadsLimitsOnce: LoadLimits is asked on the first update,
// once, and its limits count as Limits would.
func TestTrackerLoadsLimitsOnce(t *testing.T) {
	srq := recorded(t, "srq", at(0))
	limits := map[string]Limits{"rxe0": {MaxQP: 18, MaxCQ: 1000, MaxSRQ: 1}}
	calls := 0
	tr := NewTracker(TrackerConfig{LoadLimits: func() map[string]Limits { calls++; return limits }})
	if calls != 0 {
		t.Fatal("LoadLimits was asked before the first update")
	}
	u := tr.Update(srq)
	tr.Update(recorded(t, "srq", at(1)))
	if calls != 1 {
		t.Errorf("LoadLimits asked %d times, want once", calls)
	}
	if diff := cmp.Diff(Usage(srq, limits, 0), u.Limits); diff != "" {
		t.Errorf("limits from LoadLimits (-want +got):\n%s", diff)
	}
}
