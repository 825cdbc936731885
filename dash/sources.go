package dash

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/trace"
	"github.com/verbscope/verbscope/ui"
	"github.com/verbscope/verbscope/verbs"
	"github.com/verbscope/verbscope/view"
)

// sources starts the readers the dashboard shows: inspect's watch and
// sysfsmon's readings, each on its own goroutine. stop ends both.
func sources(ctx context.Context, fsys *sysfsmon.FS, conn *inspect.Conn, o Options) (ui.Sources, func()) {
	ctx, cancel := context.WithCancel(ctx)
	h := fsys.Host()
	host, _ := os.Hostname()
	mem, _ := fsys.MemTotal() // without it the owners view's heading leaves the RAM out
	// The dashboard owns the terminal: what trace cannot do (no
	// privileges, no BTF) reaches its status line, not stderr.
	notices := make(chan string, 8)
	notice := func(s string) {
		select {
		case notices <- "trace: " + s:
		default:
		}
	}
	wo := inspect.WatchOptions{Interval: o.Interval,
		Snapshot: inspect.SnapshotOptions{Query: inspect.Query{Dev: o.Dev}},
		// The Tracker warns near the devices' object limits, which
		// netlink does not carry; asked on the watcher's goroutine, so
		// the first frame does not wait for libibverbs.
		Tracker: inspect.TrackerConfig{GrowthWindow: o.Window, LoadLimits: func() map[string]inspect.Limits {
			return verbsfacts.Limits(slog.New(slog.DiscardHandler))
		}}}
	if o.Trace {
		wo.Modifies = TraceModifies(ctx, notice, func(n int) {
			// Loading parsed the kernel's BTF: tens of MB, garbage
			// now. Returned at once, not at the scavenger's pace,
			// or the dashboard sits over its RSS target for minutes.
			debug.FreeOSMemory()
			notice(fmt.Sprintf("%d programs attached: QP histories carry what each modify set", n))
		}, o.Interval)
	}
	w := inspect.Watch(ctx, conn, wo)
	sys := fsys.Watch(ctx, sysfsmon.WatchOptions{Interval: o.Interval, FullEvery: fullEvery})
	// The kernel log's RDMA lines, for the events view; without the
	// privilege to read it, one line on the status line says so.
	kern := make(chan sysfsmon.KernelLine, 1024)
	go func() {
		err := fsys.FollowKernelLog(ctx, func(l sysfsmon.KernelLine) {
			select {
			case kern <- l:
			default: // the view is behind by a thousand lines: drop
			}
		})
		if err != nil && ctx.Err() == nil {
			select {
			case notices <- "kernel log: " + strings.TrimPrefix(err.Error(), "sysfsmon: "):
			default:
			}
		}
	}()
	// The diagnosis follows every frame before the views take it: the
	// verdicts go with their reading, and into the rewind's recording.
	frames, verdicts := diagnosis(ctx, w.Frames(), openPeers(o.Peers, func(s string) {
		select {
		case notices <- s:
		default:
		}
	}))
	src := ui.Sources{
		Host:     ui.HostInfo{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version, MemTotal: mem},
		Res:      frames,
		Verdicts: verdicts,
		Sys:      sys.Updates(),
		Notices:  notices,
		Control:  control{w, sys},
		Interval: o.Interval,
		Dev:      o.Dev,
		Owners:   fsys.NewOwnerCache().ProcessOwner,
		Kernel:   kern,
		Doctor: func(context.Context) ([]ui.DoctorCheck, error) {
			return doctorChecks(fsys), nil
		},
	}
	stopRewind := func() {}
	if o.Rewind > 0 {
		devs, _ := fsys.DeviceNames()
		rh := rec.Host{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version, Devices: devs, Interval: o.Interval}
		if rs, stop, err := startRewind(ctx, src, rh, o.Rewind); err != nil {
			notices <- err.Error() + " (the dashboard runs without it)"
		} else {
			src, stopRewind = rs, stop
		}
	}
	return src, func() { cancel(); stopRewind(); w.Close(); sys.Close() }
}

// control steers both readers: a refresh, a pause, a new interval act
// on the netlink watch and the sysfs readings alike.
type control struct {
	w   *inspect.Watcher
	sys *sysfsmon.Watcher
}

func (c control) Refresh()                    { c.w.Refresh(); c.sys.Refresh() }
func (c control) SetPaused(p bool)            { c.w.SetPaused(p); c.sys.SetPaused(p) }
func (c control) SetInterval(d time.Duration) { c.w.SetInterval(d); c.sys.SetInterval(d) }

// doctorChecks runs the whole checklist for the doctor view.
func doctorChecks(fsys *sysfsmon.FS) []ui.DoctorCheck {
	return doctorRows(doctor.Run(doctor.Gather(fsys, fsys.IsLive(), doctor.Options{Needs: doctor.NeedsOf(doctor.Checks), MRSize: doctor.DefaultMRSize}), doctor.Checks))
}

// doctorRows is the report as the doctor view shows it, every text a
// process could have named made safe to print.
func doctorRows(rep *doctor.Report) []ui.DoctorCheck {
	out := make([]ui.DoctorCheck, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		dc := ui.DoctorCheck{ID: c.ID, Title: c.Title, Verdict: string(c.Verdict), Summary: view.Printable(c.Summary), Fix: c.FixLines()}
		for _, e := range c.Evidence {
			dc.Evidence = append(dc.Evidence, e.Line())
		}
		out = append(out, dc)
	}
	return out
}

// TraceModifies feeds QP histories with trace's modify events, each
// checked against its device's facts as libibverbs gives them
// (verbs.DeviceCheckEnv, asked once per device and port): the dashboard's
// histories and the recorder's transitions (rec.RunOptions.Modifies).
func TraceModifies(ctx context.Context, warn func(string), ready func(programs int), latency time.Duration) *inspect.ModifyQueue {
	return trace.FeedModifies(ctx, trace.FeedOptions{Env: trace.CachedEnv(verbs.DeviceCheckEnv), Latency: latency, Warn: warn, Ready: ready})
}
