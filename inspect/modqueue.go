package inspect

import (
	"context"
	"sync"

	"github.com/verbscope/verbscope/rdma"
)

// ModifyQueue carries traced modifies (verbscope trace's eBPF events)
// from trace's reader to a Watcher's Tracker, and what the reader says
// of itself (TraceStatus). Put never waits for the Watcher: a reader
// that waited would leave the kernel's ring buffer to fill, and the
// kernel drops what does not fit. The Watcher takes the whole queue
// before each snapshot is tracked.
//
// It is coalescing rather than a channel: a burst (10,000 QPs set up at
// once, 30,000 modifies) arrives while the Watcher is busy in a dump that
// takes seconds, and a channel of any size either blocks the reader or
// drops modifies at random. The queue keeps, per QP, the newest modifies
// up to the history length (TrackerConfig.HistoryLen): the older ones
// would be trimmed from the history the moment they were added, so
// nothing the Tracker would show is dropped. (Applying each modify as it
// comes, under a lock shared with the Tracker, was the other way: it
// makes the reader wait for every dump.)
//
// It is bounded all the same (maxQueued, maxTouched): while readings
// stall (a paused dashboard, a dump that keeps failing) a busy host
// churns through QPs without end, and each new one would stay. What
// does not fit is dropped and counted with trace's losses (Status), and
// a lost event makes the next reading a whole dump (reconciler.read).
//
// It is safe for concurrent use.
type ModifyQueue struct {
	mu sync.Mutex
	// byQP holds each QP's waiting modifies, oldest first; order the
	// QPs in the order their first waiting modify came.
	byQP   map[Key][]Modify
	order  []Key
	keep   int
	status TraceStatus
	// touch is what trace saw created, modified or destroyed since the
	// last reading took it (Touch).
	touch touched
	// gone are the QPs trace saw destroyed since the Tracker last took
	// the queue, in the order they were.
	gone []goneQP
	// wake is poked by each Put: the Watcher that takes this queue
	// brings its next snapshot forward (Watch).
	wake chan struct{}
	// drain is the reader's (SetDrain).
	drain func(context.Context) error
	// held counts the modifies in byQP; dropped the events the queue
	// had no room for (Status adds them to trace's losses).
	held    int
	dropped uint64
	limits  queueLimits
}

// queueLimits are a queue's bounds: maxQueued, maxTouched and maxGone
// (smaller in tests).
type queueLimits struct{ modifies, touched, gone int }

// maxQueued bounds the modifies a queue holds between two readings, and
// maxTouched the objects it holds as touched: a burst of 10,000 QPs set
// up at once puts 30,000 modifies and touches some 40,000 objects (QPs,
// their CQs and MRs), and both bounds keep 3x and more to spare over it.
// Past them an event is dropped, not queued: the whole dump it forces
// reads every object as it is, and only the histories lack the dropped
// modifies, which the loss count owns up to.
const (
	maxQueued  = 1 << 17
	maxTouched = 1 << 17
)

// TraceStatus is what trace's reader says of the modifies it hands over:
// whether the Tracker's transition counts are exact, and what was lost.
type TraceStatus struct {
	// Up is set once trace's programs attached: from then on every
	// modify reaches the histories, or is counted in Lost. Before,
	// transitions that two snapshots do not straddle are missed.
	Up bool
	// Off is why trace does not run (no privileges, no BTF); empty
	// while it loads or runs.
	Off string
	// Lost counts the events lost since trace started: those the
	// kernel dropped because its ring buffer was full
	// (trace.Tracer.Lost), the records that failed to decode
	// (trace.Tracer.Undecoded), and those the queue had no room for
	// while readings stalled (maxQueued, maxTouched).
	Lost uint64
	// Objects is set when trace also sees every object's create and
	// destroy (its restrack programs attached), not only the QPs': a
	// Watcher then reads the other kinds only when they changed.
	Objects bool
}

// NewModifyQueue returns an empty queue that keeps up to keep modifies
// per QP (keep <= 0: the Tracker's default history length, 64).
func NewModifyQueue(keep int) *ModifyQueue {
	if keep <= 0 {
		keep = defaultHistoryLen
	}
	return &ModifyQueue{byQP: map[Key][]Modify{}, keep: keep, wake: make(chan struct{}, 1),
		limits: queueLimits{modifies: maxQueued, touched: maxTouched, gone: maxGone}}
}

// Put adds a modify; it never blocks beyond a short lock. A modify the
// queue has no room for is counted lost.
func (q *ModifyQueue) Put(m Modify) {
	k := Key{Kind: rdma.KindQP, Dev: m.Dev, ID: m.QPN}
	q.mu.Lock()
	defer q.mu.Unlock()
	kept := q.putLocked(k, m)
	if !q.touchLocked(Touch{Kind: rdma.KindQP, Dev: m.Dev, ID: m.QPN, Port: m.Port}) || !kept {
		q.dropped++
	}
	q.poke()
}

// putLocked queues m unless the queue is full (q.mu held).
func (q *ModifyQueue) putLocked(k Key, m Modify) bool {
	ms, ok := q.byQP[k]
	switch {
	case len(ms) == q.keep:
		// The oldest would fall out of the history at once.
		ms = append(ms[:0], ms[1:]...)
	case q.held >= q.limits.modifies:
		return false
	default:
		q.held++
	}
	if !ok {
		q.order = append(q.order, k)
	}
	q.byQP[k] = append(ms, m)
	return true
}

// poke wakes the Watcher without waiting (q.mu held).
func (q *ModifyQueue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take empties the queue into t, its modifies then its destroys, and
// tells it whether trace is up (the changes snapshots see then wait for
// their modify).
func (q *ModifyQueue) take(t *Tracker) {
	q.mu.Lock()
	byQP, order, gone := q.byQP, q.order, q.gone
	q.byQP, q.order, q.gone, q.held = map[Key][]Modify{}, nil, nil, 0
	t.traceUp = q.status.Up
	q.mu.Unlock()
	for _, k := range order {
		for _, m := range byQP[k] {
			t.Observe(m)
		}
	}
	for _, g := range gone {
		t.ObserveGone(g.k, g.at)
	}
}

// SetStatus records what the reader says of itself; each later Frame
// carries it.
func (q *ModifyQueue) SetStatus(s TraceStatus) {
	q.mu.Lock()
	q.status = s
	q.mu.Unlock()
}

// SetDrain gives the queue its reader's way to hand over at once every
// event the kernel has traced (trace's Tracer.drain).
func (q *ModifyQueue) SetDrain(fn func(context.Context) error) {
	q.mu.Lock()
	q.drain = fn
	q.mu.Unlock()
}

// Drain returns once the reader has put on the queue every event the
// kernel had traced when Drain was called, so that a last reading
// (verbscope record stopping) misses none; at once, with nil, when the
// reader gave no way to (trace off or still loading).
func (q *ModifyQueue) Drain(ctx context.Context) error {
	q.mu.Lock()
	drain := q.drain
	q.mu.Unlock()
	if drain == nil {
		return nil
	}
	return drain(ctx)
}

// Status is the status last set, with the events the queue dropped
// added to the reader's losses.
func (q *ModifyQueue) Status() TraceStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.status
	s.Lost += q.dropped
	return s
}
