package inspect

import (
	"time"

	"github.com/verbscope/verbscope/rdma"
)

// Touch is an object that trace saw created, modified or destroyed (the
// kernel's rdma_restrack_add and rdma_restrack_del, ib_create_qp_user,
// ib_modify_qp_with_udata, ib_destroy_qp_user: trace's programs): a
// Watcher that builds its frames from trace reads it again, and only it,
// instead of dumping every object of the host (WatchOptions.Reconcile).
type Touch struct {
	Kind Kind
	Dev  string
	ID   uint32
	// Port is a QP's port as trace knows it (a modify's IB_QP_PORT or an
	// earlier one's, a special QP's create), 0 when it has none yet:
	// RDMA netlink answers a get of one QP only with its port.
	Port uint32
	// Gone is set by a destroy, and Time is when trace saw it: a QP
	// destroyed before any reading showed it ends its history then
	// (Tracker.ObserveGone).
	Gone bool
	Time time.Time
}

// touched is what the queue holds between two readings: the objects
// touched, each once (the last touch wins, a port once known is kept),
// and the kinds with any touch.
type touched struct {
	objs  map[Key]Touch
	kinds map[Kind]bool
}

func (t *touched) add(x Touch) {
	if t.objs == nil {
		t.objs, t.kinds = map[Key]Touch{}, map[Kind]bool{}
	}
	k := Key{Kind: x.Kind, Dev: x.Dev, ID: x.ID}
	if old, ok := t.objs[k]; ok && x.Port == 0 {
		x.Port = old.Port
	}
	t.objs[k] = x
	t.kinds[x.Kind] = true
	// What other kinds show of an object changes with it: a PD's and a
	// CQ's users count the QPs, SRQs and MRs on them (fill_res_pd_entry
	// and fill_res_cq_entry in nldev.c report the restrack refcount).
	switch x.Kind {
	case rdma.KindQP, rdma.KindSRQ:
		t.kinds[rdma.KindPD], t.kinds[rdma.KindCQ] = true, true
	case rdma.KindMR:
		t.kinds[rdma.KindPD] = true
	}
}

// Touch records an object that trace saw created or destroyed; it never
// blocks beyond a short lock, and it brings the Watcher's next reading
// forward as a modify does.
func (q *ModifyQueue) Touch(x Touch) {
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.touchLocked(x)
	if x.Gone && x.Kind == rdma.KindQP && !x.Time.IsZero() {
		if len(q.gone) < q.limits.gone {
			q.gone = append(q.gone, goneQP{Key{Kind: x.Kind, Dev: x.Dev, ID: x.ID}, x.Time})
		} else {
			kept = false
		}
	}
	if !kept {
		q.dropped++
	}
	q.poke()
}

// touchLocked adds x to the touched objects unless they are full and x
// is a new one (q.mu held).
func (q *ModifyQueue) touchLocked(x Touch) bool {
	if len(q.touch.objs) >= q.limits.touched {
		if _, ok := q.touch.objs[Key{Kind: x.Kind, Dev: x.Dev, ID: x.ID}]; !ok {
			return false
		}
	}
	q.touch.add(x)
	return true
}

// maxGone bounds the destroyed QPs a queue holds between two readings
// (a Watcher stalled under churn): past it, a QP no reading showed keeps
// a history without its end, and the destroy counts as lost.
const maxGone = 1 << 16

// goneQP is a QP's destroy, as trace saw it.
type goneQP struct {
	k  Key
	at time.Time
}

// takeTouched empties the touched objects: a reading takes them before
// it starts, so what is touched while it reads is read again by the
// next.
func (q *ModifyQueue) takeTouched() touched {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.touch
	q.touch = touched{}
	return t
}
