package inspect

import (
	"cmp"
	"context"
	"errors"
	"reflect"
	"slices"

	"github.com/verbscope/verbscope/rdma"
)

// maxQPGets bounds the QPs a traced reading reads one by one: past it,
// one dump of the QPs costs less than the gets (a get is a request and a
// reply; a dump packs some hundred QPs in each 32 KiB reply).
const maxQPGets = 256

// errDumpQPs: a traced reading cannot build the QPs from the last
// reading and trace's touches (a QP without a known port, one on another
// port, too many to read alone); the QPs are dumped.
var errDumpQPs = errors.New("the QPs need a dump")

// refresh reads what changed since prev, for a Watcher that trace tells
// of every change (WatchOptions.Reconcile): the devices, ports,
// counters, summary and system as every reading does (a request each,
// whatever the number of objects); of the object kinds, only those t
// touched (when objects says trace sees every kind's creates and
// destroys; else every kind but the QPs) and the CM_IDs, whose state
// changes without a traced call; and of the QPs, those t touched and
// those in a state where the kernel moves them without a call (RTR, RTS,
// SQD and SQE: their PSNs, which the stuck judgement follows, and a
// move to SQE or ERR on an error), each by a get. The others are prev's.
//
// It returns errDumpQPs-wrapped when the QPs must be dumped instead (the
// caller takes a whole Snapshot), and an error when the devices changed.
func (c *Conn) refresh(ctx context.Context, prev *Snapshot, t touched, opts SnapshotOptions, objects bool) (*Snapshot, error) {
	skip := map[Kind]bool{}
	for _, rk := range resourceKinds {
		switch rk.kind {
		case rdma.KindQP:
			skip[rk.kind] = true
		case rdma.KindCMID:
		default:
			skip[rk.kind] = objects && !t.kinds[rk.kind]
		}
	}
	s, err := c.snapshot(ctx, opts, skip)
	if err != nil {
		return nil, err
	}
	if !sameDevices(s.Devices, prev.Devices) {
		return nil, errDumpQPs
	}
	for _, rk := range resourceKinds {
		if rk.kind != rdma.KindQP && (skip[rk.kind] || rk.equal(s, prev)) {
			// Not read again, or read again equal (an idle host's
			// CM_IDs): the last reading's objects and generation.
			s.Reuse(rk.kind, prev)
		}
	}
	cc := c.freshComm()
	get := func(d Device, port, lqpn uint32) (QP, bool, error) { return c.qpGet(ctx, d, port, lqpn, cc) }
	qps, changed, err := refreshQPs(prev.QPs, t, s.Devices, get)
	switch {
	case err != nil:
		return nil, err
	case changed:
		s.QPs = qps
		s.MarkChanged(rdma.KindQP)
	default:
		s.Reuse(rdma.KindQP, prev)
	}
	return s, nil
}

// sameDevices reports whether two readings list the same devices: a
// device added or gone (rdma link add, a driver loaded) has objects no
// touch named.
func sameDevices(a, b []Device) bool {
	return slices.EqualFunc(a, b, func(x, y Device) bool { return x.Index == y.Index && x.Name == y.Name })
}

// activeQP reports whether the kernel may change a QP in state st without
// a modify: a connected QP's PSNs move, and an error moves it to SQE or
// ERR (the driver's completer; rxe_qp_error in rdma_rxe).
func activeQP(st QPState) bool {
	switch st {
	case rdma.QPStateRTR, rdma.QPStateRTS, rdma.QPStateSQD, rdma.QPStateSQE:
		return true
	}
	return false
}

// qpGetter reads one QP (Conn.qpGet).
type qpGetter func(d Device, port, resID uint32) (q QP, found bool, err error)

// refreshQPs builds the QPs of a traced reading from prev's: the touched
// ones and the active ones read again by get, the destroyed ones
// dropped, a new one added; in a dump's order (device, port, restrack
// id). changed is false when they are prev's, unchanged.
func refreshQPs(prev []QP, t touched, devs []Device, get qpGetter) (qps []QP, changed bool, err error) {
	devByName := make(map[string]Device, len(devs))
	for _, d := range devs {
		devByName[d.Name] = d
	}
	r, err := planQPReads(prev, t, devByName)
	if err != nil {
		return nil, false, err
	}
	got := make(map[Key]QP, len(r.want))
	for k, w := range r.want {
		q, found, err := get(devByName[k.Dev], w.port, w.resID)
		switch {
		case err != nil:
			return nil, false, err
		case found:
			got[k] = q
		default: // gone, its destroy not yet read from trace's ring
			r.drop[k] = true
		}
	}
	if len(r.drop) == 0 && unchanged(got, prev, r.at) {
		// The QPs read again are as they were (the GSI QP, idle QPs
		// in RTS): the last reading's slice and generation, so readers
		// see the same objects (Snapshot.SameObjects) and skip their
		// work.
		return prev, false, nil
	}
	return mergeQPs(prev, got, r.drop, devs), true, nil
}

// qpReads is what a traced reading reads again: each QP to read by its
// port and restrack id, where each was in the last reading, and the QPs
// to drop.
type qpReads struct {
	want map[Key]qpAt
	at   map[Key]int
	drop map[Key]bool
}

type qpAt struct{ port, resID uint32 }

// planQPReads picks the QPs to read again: the touched ones (dropping
// the destroyed) and every active one of prev. errDumpQPs when only a
// dump will do: a QP still in RESET (netlink reads it only in a dump),
// or more than maxQPGets to read.
func planQPReads(prev []QP, t touched, devByName map[string]Device) (qpReads, error) {
	r := qpReads{want: map[Key]qpAt{}, at: map[Key]int{}, drop: map[Key]bool{}}
	// Where each touched QP was in prev: a scan for the few touched, not
	// a map of all (10,000 idle QPs, every reading).
	if len(t.objs) > 0 {
		for i := range prev {
			k := Key{Kind: rdma.KindQP, Dev: prev[i].DevName, ID: prev[i].LQPN}
			if _, ok := t.objs[k]; ok {
				r.at[k] = i
			}
		}
	}
	for k, x := range t.objs {
		if k.Kind != rdma.KindQP {
			continue
		}
		if _, ok := devByName[k.Dev]; !ok {
			continue // a device the query leaves out
		}
		if x.Gone {
			r.drop[k] = true
			continue
		}
		port := x.Port
		if i, ok := r.at[k]; ok && port == 0 {
			port = prev[i].Port
		}
		if port == 0 {
			return r, errDumpQPs // just created, still in RESET
		}
		r.want[k] = qpAt{port, qpResID(port, k.ID)}
	}
	for i := range prev {
		q := &prev[i]
		k := Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}
		if _, ok := r.want[k]; !ok && activeQP(q.State) && !r.drop[k] {
			r.want[k] = qpAt{q.Port, qpResID(q.Port, q.LQPN)}
			r.at[k] = i
		}
	}
	if len(r.want) > maxQPGets {
		return r, errDumpQPs
	}
	return r, nil
}

// mergeQPs is prev with the QPs read again in their places, the new
// ones added and the dropped ones left out, in a dump's order.
func mergeQPs(prev []QP, got map[Key]QP, drop map[Key]bool, devs []Device) []QP {
	out := make([]QP, 0, len(prev)+len(got))
	placed := make(map[Key]bool, len(got))
	for i := range prev {
		k := Key{Kind: rdma.KindQP, Dev: prev[i].DevName, ID: prev[i].LQPN}
		switch q, ok := got[k]; {
		case drop[k]:
		case ok:
			out = append(out, q)
			placed[k] = true
		default:
			out = append(out, prev[i])
		}
	}
	for k, q := range got {
		if !placed[k] {
			out = append(out, q)
		}
	}
	devOrder := make(map[string]int, len(devs))
	for i, d := range devs {
		devOrder[d.Name] = i
	}
	order := func(a, b QP) int {
		return cmp.Or(cmp.Compare(devOrder[a.DevName], devOrder[b.DevName]), cmp.Compare(a.Port, b.Port), cmp.Compare(qpResID(a.Port, a.LQPN), qpResID(b.Port, b.LQPN)))
	}
	// Each QP once: a reading built on one that held a QP twice would
	// keep it twice for good. Whole dumps did, while QPs were created
	// during them (why: onceEach in dump.go, and the compaction in
	// kinds.go's dumpDev); onceEach keeps each QP of a dump once now,
	// and this stays as the guard of readings built on readings.
	slices.SortStableFunc(out, order)
	out = compactLast(out, func(a, b *QP) bool { return order(*a, *b) == 0 })
	if len(out) == 0 {
		out = nil // as a dump of none
	}
	return out
}

// qpResID is a QP's restrack id, the key of the kernel's table of QPs
// and so the order of a dump: its number, with the port above it for
// the special QPs (SMI and GSI, QP0 and QP1 of every port: rdma_restrack_add
// in drivers/infiniband/core/restrack.c keys them so). A get asks for
// the QP by it.
func qpResID(port, lqpn uint32) uint32 {
	if lqpn <= 1 {
		return lqpn | port<<24
	}
	return lqpn
}

// unchanged reports whether every QP in got is in prev, the same in
// every field.
func unchanged(got map[Key]QP, prev []QP, at map[Key]int) bool {
	for k, q := range got {
		i, ok := at[k]
		if !ok {
			return false
		}
		if !reflect.DeepEqual(q, prev[i]) {
			return false
		}
	}
	return true
}
