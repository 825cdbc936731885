package dash

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/ui"
	"github.com/verbscope/verbscope/view"
)

// sources starts the readers the dashboard shows: inspect's watch and
// sysfsmon's readings, each on its own goroutine. stop ends both.
func sources(ctx context.Context, fsys *sysfsmon.FS, conn *inspect.Conn, o Options) (ui.Sources, func()) {
	ctx, cancel := context.WithCancel(ctx)
	h := fsys.Host()
	host, _ := os.Hostname()
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
		Tracker:  inspect.TrackerConfig{Limits: o.Limits}}
	if o.Modifies != nil {
		wo.Modifies = o.Modifies(ctx, notice, func(n int) {
			notice(fmt.Sprintf("%d programs attached: QP histories carry what each modify set", n))
		}, o.Interval)
	}
	w := inspect.Watch(ctx, conn, wo)
	sys := newSysRelay(ctx, fsys, o.Interval)
	src := ui.Sources{
		Host:     ui.HostInfo{Hostname: host, Kernel: h.KernelRelease, RDMACore: h.RDMACore.Version},
		Res:      w.Frames(),
		Sys:      sys.out,
		Notices:  notices,
		Control:  control{w, sys},
		Interval: o.Interval,
		Dev:      o.Dev,
		Doctor: func(context.Context) ([]ui.DoctorCheck, error) {
			return doctorChecks(fsys), nil
		},
	}
	return src, func() { cancel(); w.Close() }
}

// control steers both readers.
type control struct {
	w   *inspect.Watcher
	sys *sysRelay
}

func (c control) Refresh()                    { c.w.Refresh() }
func (c control) SetPaused(p bool)            { c.w.SetPaused(p); c.sys.setPaused(p) }
func (c control) SetInterval(d time.Duration) { c.w.SetInterval(d); c.sys.setInterval(d) }

// sysRelay keeps one channel for the dashboard while sysfsmon's Poll is
// restarted for a new interval or stopped for a pause.
type sysRelay struct {
	parent   context.Context
	fsys     *sysfsmon.FS
	out      chan sysfsmon.Update
	mu       sync.Mutex
	cancel   context.CancelFunc
	interval time.Duration
	paused   bool
}

func newSysRelay(ctx context.Context, fsys *sysfsmon.FS, d time.Duration) *sysRelay {
	r := &sysRelay{parent: ctx, fsys: fsys, out: make(chan sysfsmon.Update), interval: d}
	r.mu.Lock()
	r.start()
	r.mu.Unlock()
	return r
}

// start runs Poll until the relay is restarted; r.mu is held.
func (r *sysRelay) start() {
	if r.cancel != nil {
		r.cancel()
	}
	ctx, cancel := context.WithCancel(r.parent)
	r.cancel = cancel
	if r.paused {
		return
	}
	ch := r.fsys.PollWith(ctx, sysfsmon.PollOptions{Interval: r.interval, FullEvery: fullEvery})
	go func() {
		for u := range ch {
			select {
			case r.out <- u:
			case <-ctx.Done():
				return
			}
		}
	}()
}

func (r *sysRelay) setPaused(p bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paused = p
	r.start()
}

func (r *sysRelay) setInterval(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.interval = d
	r.start()
}

// doctorChecks runs the whole checklist for the doctor view.
func doctorChecks(fsys *sysfsmon.FS) []ui.DoctorCheck {
	rep := doctor.Run(doctor.Gather(fsys, fsys.IsLive(), doctor.Options{Needs: doctor.NeedsOf(doctor.Checks), MRSize: doctor.DefaultMRSize}), doctor.Checks)
	out := make([]ui.DoctorCheck, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		dc := ui.DoctorCheck{ID: c.ID, Title: c.Title, Verdict: string(c.Verdict), Summary: view.Printable(c.Summary), Fix: c.Fix}
		for _, e := range c.Evidence {
			line := view.Printable(e.What + ": " + e.Value) // a leak's evidence names its process
			if e.Verdict != "" {
				line = "[" + string(e.Verdict) + "] " + line
			}
			if e.Source != "" {
				line += "  (" + view.Printable(e.Source) + ")"
			}
			dc.Evidence = append(dc.Evidence, line)
		}
		out = append(out, dc)
	}
	return out
}
