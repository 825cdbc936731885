package dash

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/ui"
	"github.com/verbscope/verbscope/view"
)

// sources starts the readers the dashboard shows (live.Host: the
// netlink watch with trace's modifies, the sysfs readings, the kernel
// log) and the diagnosis that follows its frames. stop ends them.
func sources(ctx context.Context, fsys *sysfsmon.FS, conn *inspect.Conn, o Options) (ui.Sources, func(), error) {
	ctx, cancel := context.WithCancel(ctx)
	h := fsys.Host()
	host, _ := os.Hostname()
	mem, _ := fsys.MemTotal() // without it the owners view's heading leaves the RAM out
	// The dashboard owns the terminal: what the readers cannot do (trace
	// without privileges or BTF, the kernel log without CAP_SYSLOG)
	// reaches its status line, not stderr.
	notices := make(chan string, 8)
	notify := func(s string) {
		select {
		case notices <- s:
		default:
		}
	}
	lo := live.Options{Interval: o.Interval, Netlink: true, Conn: conn,
		Snapshot: inspect.SnapshotOptions{Query: inspect.Query{Dev: o.Dev}}, Window: o.Window,
		// The Tracker warns near the devices' object limits.
		LoadLimits: verbsfacts.LoadLimits(slog.New(slog.DiscardHandler)),
		FS:         fsys, Sysfs: true, Kernel: true,
		KernelFailed: func(err error) { notify("kernel log: " + strings.TrimPrefix(err.Error(), "sysfsmon: ")) }}
	if o.Trace {
		lo.Trace = &live.TraceOptions{Env: verbsfacts.TraceEnv(),
			Warn: func(s string) { notify("trace: " + s) },
			Ready: func(n int) {
				// Loading parsed the kernel's BTF: tens of MB, garbage
				// now. Returned at once, not at the scavenger's pace,
				// or the dashboard sits over its RSS target for minutes.
				debug.FreeOSMemory()
				notify(fmt.Sprintf("trace: %d programs attached: QP histories carry what each modify set", n))
			}}
	}
	readers, err := live.Start(ctx, lo)
	if err != nil {
		cancel()
		return ui.Sources{}, nil, err
	}
	// The diagnosis follows every frame before the views take it: the
	// verdicts go with their reading, and into the rewind's recording.
	frames, verdicts := diagnosis(ctx, readers.Frames(), openPeers(o.Peers, notify))
	src := ui.Sources{
		Host:     ui.HostInfo{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version, MemTotal: mem},
		Res:      frames,
		Verdicts: verdicts,
		Sys:      readers.Updates(),
		Notices:  notices,
		Control:  readers,
		Interval: o.Interval,
		Dev:      o.Dev,
		Owners:   readers.Owners(),
		Kernel:   readers.Kernel(),
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
	return src, func() { cancel(); stopRewind(); readers.Close() }, nil
}

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
