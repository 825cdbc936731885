package trace

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/verbscope/verbscope/inspect"
)

// FeedOptions configure FeedModifies; the zero value works.
type FeedOptions struct {
	// Env gives rdma.Check the device's facts for a failed modify
	// (Options.Env).
	Env EnvFunc
	// Latency is how late a modify may arrive (Options.Latency): a
	// reader that looks once every refresh passes its interval.
	Latency time.Duration
	// Warn hears what trace has to say, without a "trace: " of its own:
	// programs that attached later, when ib_core loaded, and why
	// nothing is traced (no CAP_BPF and CAP_PERFMON, no BTF). Nil:
	// silence.
	Warn func(string)
	// Ready, when set, is told how many programs attached once loading
	// is done.
	Ready func(programs int)
}

// FeedModifies traces every process's QP modifies from the kernel for
// the inspector's Tracker, so that QP histories carry the attributes
// each transition set and the modifies that failed: the bridge behind
// the dashboard's and the exporter's histories, and tells of every
// object created and destroyed (inspect.Touch), from which the
// Watcher builds its readings between whole dumps. It loads the QP and
// the restrack programs (GroupQP, GroupObjects), not the uverbs
// handlers' and async events', and loading still takes seconds (tens
// under emulation), so it runs in the background; without the privileges or
// BTF it says so through Warn, and the inspector works as before, with
// states only.
//
// The reader puts each modify on the returned queue, which never makes
// it wait (inspect.ModifyQueue says why a queue, not a channel), and
// keeps the queue's status: loading, up (once a program attached: with
// ib_core not yet loaded, Open succeeds with none, and they attach when
// it loads), or off, and the events lost so far, looked at every
// lostEvery. Reading ends when ctx does.
func FeedModifies(ctx context.Context, o FeedOptions) *inspect.ModifyQueue {
	warn := o.Warn
	if warn == nil {
		warn = func(string) {}
	}
	q := inspect.NewModifyQueue(0)
	var tp atomic.Pointer[Tracer]
	var lost atomic.Uint64
	status := func() {
		if t := tp.Load(); t != nil {
			hooks := t.Hooks()
			q.SetStatus(inspect.TraceStatus{Up: len(hooks) > 0, Lost: lost.Load(), Objects: seesObjects(hooks)})
		}
	}
	notify := func(msg string) { warn(msg); status() }
	go func() {
		t, err := Open(Options{Env: o.Env, Groups: GroupQP | GroupObjects, Notify: notify, Latency: o.Latency})
		if err != nil {
			q.SetStatus(inspect.TraceStatus{Off: err.Error()})
			warn(fmt.Sprintf("QP histories show states only, not the attributes each modify set: %v", err))
			return
		}
		tp.Store(t)
		status() // after Store: a Notify before it is covered here
		q.SetDrain(func(ctx context.Context) error {
			err := t.drain(ctx)
			// The losses up to now, not as of the last lostEvery: the
			// last reading then says what it lacks.
			if dropped, lerr := t.Lost(); lerr == nil {
				storeMax(&lost, dropped+t.Undecoded())
				status()
			}
			return err
		})
		if o.Ready != nil {
			o.Ready(len(t.Hooks()))
		}
		stop := context.AfterFunc(ctx, func() { t.Close() })
		defer stop()
		defer t.Close()
		go watchLost(ctx, t, lostEvery, func(dropped, undecoded uint64) {
			storeMax(&lost, dropped+undecoded)
			status()
		})
		t.feed(q)
	}()
	return q
}

// seesObjects reports whether hooks include both restrack programs: then
// every object's create and destroy reaches the queue (Event.touch), not
// only the QPs'.
func seesObjects(hooks []Hook) bool {
	var add, del bool
	for _, h := range hooks {
		add = add || h.Program == "restrack_add"
		del = del || h.Program == "restrack_del"
	}
	return add && del
}

// storeMax raises v to n: the counts only grow, and a drain and
// watchLost may read them in one order and store them in the other.
func storeMax(v *atomic.Uint64, n uint64) {
	for {
		old := v.Load()
		if n <= old || v.CompareAndSwap(old, n) {
			return
		}
	}
}
