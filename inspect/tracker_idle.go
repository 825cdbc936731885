package inspect

import (
	"maps"
	"slices"
	"sort"

	"github.com/verbscope/verbscope/rdma"
)

// An idle host's readings hand over the last reading's objects, with
// their generations (Snapshot.SameObjects): nothing appeared, vanished
// or changed state, and no QP's PSNs moved. The Tracker then looks only
// at the QPs that a reading can judge (connected: failed, or in a state
// whose PSNs the stuck judgement follows) and hands out what it derived
// from every object the last time, so that 10,000 idle QPs in INIT cost
// a reading nothing (BenchmarkTrackIdle10kQPs).

// lastFull is what the Tracker derived from the last snapshot it looked
// at whole.
type lastFull struct {
	snap *Snapshot
	// connected indexes snap.QPs' QPs past INIT (isConnected).
	connected []int
	procs     []ProcessUsage
	limits    []LimitUsage
	dead      []Change
}

// isConnected reports whether a QP in state st has a remote QP
// (dest_qp_num comes with RTR) or has failed: the QPs that can be a
// peer, be stuck or be failed. A QP in RESET or INIT is none of these.
func isConnected(st QPState) bool {
	return st != rdma.QPStateReset && st != rdma.QPStateInit
}

// peersOf maps the connected QPs of s (indexes into s.QPs) by key.
func peersOf(s *Snapshot, connected []int) map[Key]*QP {
	peers := make(map[Key]*QP, len(connected))
	for _, i := range connected {
		q := &s.QPs[i]
		peers[Key{rdma.KindQP, q.DevName, q.LQPN}] = q
	}
	return peers
}

// updateSame is Update for a snapshot that holds the last one's very
// objects: the same result as looking at all of them, since for every
// QP in RESET or INIT that look would find its state, PSNs and owner as
// they were and only count one more reading, which the generation
// counts (tracked.movedGen); traced modifies those QPs entered are
// matched below.
func (t *Tracker) updateSame(u *Update, s *Snapshot) {
	end := s.Time.Add(s.Took)
	qpRetries := t.qpRetries(s)
	connected := t.last.connected
	peers := peersOf(s, connected)
	for _, i := range connected {
		q := &s.QPs[i]
		k := Key{rdma.KindQP, q.DevName, q.LQPN}
		t.trackQP(u, k, t.objs[k], false, q, peers, qpRetries, end)
	}
	// The traced modifies into a state a QP not looked at above is in.
	for _, k := range sortedKeys(t.entered) {
		if tr := t.objs[k]; tr != nil && !isConnected(tr.state) {
			t.take(k, tr.state, end.Add(clockSlack), s.Time.Add(-clockSlack))
		}
	}
	t.finish(u, s)
	u.Processes = t.last.procs
	u.Growing = t.trackGrowth(s.Time, u.Processes)
	u.Limits, u.Dead = t.last.limits, t.last.dead
	t.last.snap = s
}

// finish ends every Update: the QPs traced but never shown, the traced
// changes, the counts of the devices the snapshot still shows, and the
// alerts in key order.
func (t *Tracker) finish(u *Update, s *Snapshot) {
	for _, k := range sortedKeys(t.unseen) {
		_, live := t.objs[k]
		switch {
		case live:
			delete(t.unseen, k)
		case t.gen >= t.unseen[k]+2:
			delete(t.unseen, k)
			delete(t.entered, k)
			if _, kept := t.goneSeq[k]; !kept {
				t.retain(k)
			}
		}
	}
	t.countTraced(u)
	t.forgetTransitions(s)
	u.Transitions = maps.Clone(t.transitions)
	// Stable: a QP's traced changes stay in the order they were made.
	sort.SliceStable(u.StateChanges, func(i, j int) bool { return keyLess(u.StateChanges[i].Key, u.StateChanges[j].Key) })
	sort.Slice(u.Failed, func(i, j int) bool { return keyLess(u.Failed[i].Key, u.Failed[j].Key) })
	sort.Slice(u.Stuck, func(i, j int) bool { return keyLess(u.Stuck[i].Key, u.Stuck[j].Key) })
}

// sortedKeys returns m's keys in key order, so that what the Tracker
// does with them does not depend on map order.
func sortedKeys[V any](m map[Key]V) []Key {
	return slices.SortedFunc(maps.Keys(m), compareKey)
}
