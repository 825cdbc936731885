package export

import (
	"context"
	"log/slog"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/trace"
)

// NetlinkOptions configure FollowNetlink.
type NetlinkOptions struct {
	// Interval is the pause between two readings, and between two tries
	// to reach RDMA netlink.
	Interval time.Duration
	// Limits are the devices' object limits (DeviceLimits).
	Limits map[string]inspect.Limits
	// Window is how far back the Tracker looks for growing objects
	// (0: inspect.DefaultGrowthWindow).
	Window time.Duration
	// Trace, when set, turns on the tracing of every process's QP
	// modifies for the histories, and hears what trace has to say.
	Trace *slog.Logger
	// TraceEnv gives rdma.Check the device's facts for a traced modify
	// that failed (trace.Options.Env).
	TraceEnv trace.EnvFunc
	// Also, when set, is handed every frame after the Collector took it
	// (export --record's recording); it must not block.
	Also func(inspect.Frame)
}

// FollowNetlink feeds c inspect's watch stream until ctx ends. Without
// RDMA netlink (no ib_core yet) it reports the failure as a frame and
// tries again every interval: a driver loaded later shows up.
func (c *Collector) FollowNetlink(ctx context.Context, o NetlinkOptions) {
	for {
		conn, err := inspect.Dial()
		if err == nil {
			defer conn.Close()
			var mods *inspect.ModifyQueue
			if log := o.Trace; log != nil {
				mods = trace.FeedModifies(ctx, trace.FeedOptions{
					Env:     o.TraceEnv,
					Latency: o.Interval,
					Warn:    func(msg string) { log.Warn("trace: " + msg) },
					Ready: func(n int) {
						log.Info("trace: QP modifies are traced; /api/v1/qps histories carry them (their attributes to authenticated clients)", "programs", n)
					},
				})
			}
			w := inspect.Watch(ctx, conn, inspect.WatchOptions{Interval: o.Interval, Tracker: inspect.TrackerConfig{Limits: o.Limits, GrowthWindow: o.Window}, Modifies: mods})
			for f := range w.Frames() {
				c.observe(f)
				if o.Also != nil {
					o.Also(f)
				}
			}
			return
		}
		c.observe(inspect.Frame{Err: err})
		select {
		case <-ctx.Done():
			return
		case <-time.After(o.Interval):
		}
	}
}
