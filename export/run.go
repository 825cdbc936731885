package export

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/trace"
)

// RunOptions are `verbscope export`'s: what Run reads, serves and
// records.
type RunOptions struct {
	// Collector tunes the Collector; its Interval is how often the
	// readers read.
	Collector Options
	// API says who gets /api/v1/qps's hidden fields; its WebConfig is
	// the server's TLS and basic auth too (Serve).
	API APIOptions
	// Listen is the address to listen on (--web.listen-address).
	Listen string
	// Window is how long a kind must only grow to be growing
	// (live.Options.Window).
	Window time.Duration
	// Trace traces every process's QP modifies for the histories, with
	// TraceEnv's facts for the check of a failed one
	// (live.TraceOptions.Env).
	Trace    bool
	TraceEnv trace.EnvFunc
	// LoadLimits reads the devices' object limits
	// (live.Options.LoadLimits), which live does not read itself.
	LoadLimits func() map[string]inspect.Limits
	// Record, when set, also records the exporter's readings into that
	// file as `verbscope record` would, a file already there kept as
	// Record+".prev" (record.go); RecordOptions tune the Writer and
	// RecordVersion is the verbscope its host table names.
	Record        string
	RecordOptions rec.WriterOptions
	RecordVersion string
	// Log hears what the exporter says: what it serves without
	// authentication, a late first reading, and what trace, the kernel
	// log and the recording cannot do; nil: nobody.
	Log *slog.Logger
}

// Run is `verbscope export`: it starts this host's readers, feeds a
// Collector their readings (and the recording, with o.Record) and
// serves it on o.Listen until ctx ends, which is a normal end (nil).
func Run(ctx context.Context, o RunOptions) error {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	sys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return err
	}
	c := NewCollector(o.Collector)
	level, exposure, err := o.API.exposure()
	if err != nil {
		return fmt.Errorf("export: --web.config.file: %w", err)
	}
	h, err := newHandler(c, o.API)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w (another exporter there? pick one with --web.listen-address)", o.Listen, err)
	}
	defer l.Close() // serve closes it too; this is for the returns before
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var also followAlso
	if o.Record != "" {
		feed, err := startRecording(ctx, o, sys)
		if err != nil {
			return err
		}
		defer feed.close(o.Log)
		also = followAlso{Frame: feed.Frame, Sys: feed.Sys}
	}
	readers, err := live.Start(ctx, o.readers(sys))
	if err != nil {
		return err
	}
	defer readers.Close()
	go c.follow(readers, also)
	if !firstReadings(ctx, c, o) {
		return nil
	}
	o.Log.Log(ctx, level, exposure)
	err = serveHTTP(ctx, l, h, o.API.WebConfig, o.Log)
	if errors.Is(err, context.Canceled) {
		return nil // SIGTERM or SIGINT: a server's normal end
	}
	return err
}

// firstReadings waits for c's first readings, which come before the
// first scrape can, unless one hangs: then the server starts anyway
// and reports it failed. False: ctx ended first.
func firstReadings(ctx context.Context, c *Collector, o RunOptions) bool {
	select {
	case <-c.Ready():
	case <-time.After(LateAfter * o.Collector.Interval):
		o.Log.Warn("serving before the first readings: one is late, its collector reports failure until it comes")
	case <-ctx.Done():
		return false
	}
	return true
}

// readers are the readers the exporter follows: the objects, retried
// until RDMA netlink answers, with trace's modifies if o.Trace; the
// devices with their counters (and the IRQs for o.Record's recording);
// the kernel log. What trace and the kernel log cannot do goes to
// o.Log.
func (o RunOptions) readers(sys *sysfsmon.FS) live.Options {
	log := o.Log
	lo := live.Options{Interval: o.Collector.Interval, Netlink: true, Window: o.Window, LoadLimits: o.LoadLimits,
		FS: sys, Sysfs: true, NoIRQs: o.Record == "", Kernel: true, KernelFailed: kernelLogFailed(log)}
	if o.Trace {
		lo.Trace = &live.TraceOptions{Env: o.TraceEnv,
			Warn: func(msg string) { log.Warn("trace: " + msg) },
			Ready: func(n int) {
				log.Info("trace: QP modifies are traced; /api/v1/qps histories carry them (their attributes to authenticated clients)", "programs", n)
			}}
	}
	return lo
}
