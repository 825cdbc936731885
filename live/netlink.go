package live

import (
	"context"
	"sync"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/trace"
)

// netlinkWatch is a Host's watch of RDMA netlink: inspect's Watcher,
// once there is a connection to read. Until then (no ib_core yet) the
// tries to dial are paced as readings are, so the controls asked
// meanwhile hold, and the Watcher starts with them.
type netlinkWatch struct {
	o   Options
	out chan inspect.Frame
	// done is closed once the watch ended and out is closed.
	done chan struct{}

	mu    sync.Mutex
	tries *pace.Pacer
	w     *inspect.Watcher     // nil until dialed
	mods  *inspect.ModifyQueue // nil without trace
}

func startNetlink(ctx context.Context, o Options) *netlinkWatch {
	n := &netlinkWatch{o: o, out: make(chan inspect.Frame, 1), done: make(chan struct{}),
		tries: pace.New(o.Interval, inspect.DefaultWatchInterval, nil)}
	go n.run(ctx)
	return n
}

// run dials unless given a connection, then hands every frame of the
// watch on, the latest winning as on the Watcher's own channel.
func (n *netlinkWatch) run(ctx context.Context) {
	defer close(n.done)
	defer close(n.out)
	conn := n.o.Conn
	if conn == nil {
		if conn = n.dial(ctx); conn == nil {
			return
		}
		defer conn.Close()
	}
	w := n.watch(ctx, conn)
	if w == nil {
		return
	}
	for f := range w.Frames() {
		pace.Deliver(n.out, f)
	}
}

// dial opens RDMA netlink, handing each failure on as a frame and trying
// again every interval; nil once ctx ended.
func (n *netlinkWatch) dial(ctx context.Context) *inspect.Conn {
	dial := n.o.dial
	if dial == nil {
		dial = inspect.Dial
	}
	for {
		c, err := dial()
		if err == nil {
			return c
		}
		if !n.tries.Paused() {
			pace.Deliver(n.out, inspect.Frame{Err: err})
		}
		if !n.tries.Wait(ctx) {
			return nil
		}
	}
}

// watch starts trace, when asked, and the Watcher of conn with the
// interval and pause the controls set so far; nil once ctx ended.
func (n *netlinkWatch) watch(ctx context.Context, conn *inspect.Conn) *inspect.Watcher {
	n.mu.Lock()
	defer n.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	o := n.o
	wo := inspect.WatchOptions{Interval: n.tries.Interval(), Snapshot: o.Snapshot,
		Tracker: inspect.TrackerConfig{GrowthWindow: o.Window, LoadLimits: o.LoadLimits}}
	if o.FS != nil {
		// The stuck judgement reads each device's driver's retry
		// counters; sysfs knows a renamed device's driver.
		wo.Tracker.Driver = o.FS.DeviceDriver
	}
	if t := o.Trace; t != nil {
		wo.Modifies = trace.FeedModifies(ctx, trace.FeedOptions{Env: t.Env, Latency: o.Interval, Warn: t.Warn, Ready: t.Ready})
	}
	n.w, n.mods = inspect.Watch(ctx, conn, wo), wo.Modifies
	if n.tries.Paused() {
		n.w.SetPaused(true)
	}
	return n.w
}

func (n *netlinkWatch) refresh() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.w == nil {
		n.tries.Refresh() // try to dial now
		return
	}
	n.w.Refresh()
}

func (n *netlinkWatch) setPaused(p bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tries.SetPaused(p)
	if n.w != nil {
		n.w.SetPaused(p)
	}
}

func (n *netlinkWatch) setInterval(d time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tries.SetInterval(d)
	if n.w != nil {
		n.w.SetInterval(d)
	}
}

func (n *netlinkWatch) queue() *inspect.ModifyQueue {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.mods
}

// close waits for the watch to end once the Host's context is
// cancelled (the Watcher's loop with it).
func (n *netlinkWatch) close() { <-n.done }
