package live

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/trace"
)

// FullEvery is how many sysfs readings pass between two full ones
// (sysfsmon.WatchOptions.FullEvery), for every consumer alike: port
// states and counters are read every reading, the devices' facts and
// the IRQs every tenth, and a GID table (up to 1,024 entries of three
// files each; rxe's took seconds under emulation, which at a short
// interval made every reading late) only when its port's state or the
// host's addresses change. Neither changes at a person's pace, and a
// device that comes or goes is read at once.
const FullEvery = 10

// KernelBuffer is how many kernel log lines the log's reader may be
// ahead of Kernel's consumer before it waits for it: the lines the ring
// holds at start come in one burst, and a reader that waits loses
// nothing the kernel's ring still holds (one that dropped lines would
// make the exporter's counts wrong).
const KernelBuffer = 1024

// Options choose a Host's readers and tune them. Each reader is off
// unless named: Netlink, Sysfs, Kernel.
type Options struct {
	// Interval is the pause between two readings of every reader, and
	// between two tries to reach RDMA netlink (0: inspect's and
	// sysfsmon's defaults); trace hands its events over as late as
	// that (trace.Options.Latency).
	Interval time.Duration

	// Netlink starts the watch of RDMA netlink (inspect.Watch): Frames.
	Netlink bool
	// Conn is the connection the watch reads, opened and closed by the
	// caller (who may have refused to start without one). Nil: the Host
	// dials, and while RDMA netlink is not there (ib_core not loaded
	// yet) it hands a frame with the error and tries again every
	// interval, so a driver loaded later shows up.
	Conn *inspect.Conn
	// Snapshot selects what each netlink reading reads (one device, no
	// counters).
	Snapshot inspect.SnapshotOptions
	// Window is how far back the Tracker looks for growing objects
	// (inspect.TrackerConfig.GrowthWindow; 0: its default).
	Window time.Duration
	// LoadLimits gives the devices' object limits, which the Tracker
	// warns near and netlink does not carry (verbsfacts.Limits asks
	// libibverbs). It is asked on the watch's goroutine at its first
	// reading (inspect.TrackerConfig.LoadLimits), so nobody waits for
	// libibverbs to open every device. Nil: no limits.
	LoadLimits func() map[string]inspect.Limits
	// Trace, when set, traces every process's QP modifies from the
	// kernel for the QP histories (trace.FeedModifies), started with
	// the watch.
	Trace *TraceOptions

	// FS is the sysfs and procfs that the sysfs watch, the kernel log
	// and Owners read; nil: none of them.
	FS *sysfsmon.FS
	// Sysfs starts the watch of FS's devices, ports, counters and IRQs
	// (sysfsmon.FS.Watch, full every FullEvery readings): Updates.
	Sysfs bool
	// NoIRQs leaves /proc/interrupts unread, for a consumer that shows
	// no IRQs (sysfsmon.WatchOptions.NoIRQs).
	NoIRQs bool
	// Kernel follows the RDMA lines of FS's kernel log
	// (sysfsmon.FS.FollowKernelLog): Kernel.
	Kernel bool
	// KernelFailed, when set, hears once why the kernel log could not
	// be followed (no privilege to read /dev/kmsg, no /dev/kmsg), before
	// Kernel closes.
	KernelFailed func(error)

	// dial opens RDMA netlink when Conn is nil (tests fake it; nil:
	// inspect.Dial).
	dial func() (*inspect.Conn, error)
}

// TraceOptions are trace's part of Options (trace.FeedOptions).
type TraceOptions struct {
	// Env gives rdma.Check a device's facts for a traced modify that
	// failed: verbsfacts.TraceEnv asks libibverbs, which live does not
	// call itself (it is cgo). Nil: the check runs without them.
	Env trace.EnvFunc
	// Warn hears what trace cannot do or did later (no privilege, no
	// BTF, programs attached once ib_core loaded), without a "trace: "
	// of its own. Nil: silence.
	Warn func(string)
	// Ready, when set, is told how many programs attached once loading
	// is done.
	Ready func(programs int)
}

// Host is a host's readers, started once by Start: one feed per
// source, each delivering as its reader reads, and the controls that
// steer them all. Every method is safe to call from any goroutine.
type Host struct {
	cancel  context.CancelFunc
	netlink *netlinkWatch // nil without Options.Netlink
	sys     *sysfsmon.Watcher
	frames  <-chan inspect.Frame
	updates <-chan sysfsmon.Update
	kernel  chan sysfsmon.KernelLine
	owners  owners.Lookup
	wg      sync.WaitGroup
	once    sync.Once
}

// Start starts the readers o names, each on its own goroutine, until
// ctx ends or Close. It fails only on options that cannot work
// together, saying which.
func Start(ctx context.Context, o Options) (*Host, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	h := &Host{cancel: cancel, kernel: make(chan sysfsmon.KernelLine, KernelBuffer)}
	h.frames = closed[inspect.Frame]()
	if o.Netlink {
		h.netlink = startNetlink(ctx, o)
		h.frames = h.netlink.out
	}
	h.updates = closed[sysfsmon.Update]()
	if o.Sysfs {
		h.sys = o.FS.Watch(ctx, sysfsmon.WatchOptions{Interval: o.Interval, FullEvery: FullEvery, NoIRQs: o.NoIRQs})
		h.updates = h.sys.Updates()
	}
	if o.Kernel {
		h.wg.Add(1)
		go h.followKernel(ctx, o.FS, o.KernelFailed)
	} else {
		close(h.kernel)
	}
	if o.FS != nil {
		h.owners = o.FS.NewOwnerCache().ProcessOwner
	}
	return h, nil
}

// check says what in o cannot work, and how to set it right.
func (o *Options) check() error {
	var errs []error
	if (o.Sysfs || o.Kernel) && o.FS == nil {
		errs = append(errs, errors.New("live: Options.Sysfs and Options.Kernel read an FS, and Options.FS is nil: give it sysfsmon.NewDefaultFS() (a fixture's FS in a test)"))
	}
	if !o.Netlink && (o.Conn != nil || o.Trace != nil) {
		errs = append(errs, errors.New("live: Options.Conn and Options.Trace are the netlink watch's, which is off: set Options.Netlink too"))
	}
	return errors.Join(errs...)
}

// closed is a feed whose reader is off: it delivers nothing and ends at
// once, so a consumer that ranges over every feed is not held up.
func closed[T any]() <-chan T {
	ch := make(chan T)
	close(ch)
	return ch
}

// Frames delivers the netlink watch's frames (inspect.Watcher.Frames):
// it holds at most one, a newer frame replacing one not yet received, so
// a slow consumer sees the latest state, never a queue. Without RDMA
// netlink to dial, each try's failure comes as a frame with Err. It is
// closed when the watch ends (Close, ctx), at once without
// Options.Netlink.
func (h *Host) Frames() <-chan inspect.Frame { return h.frames }

// Updates delivers the sysfs watch's readings (sysfsmon.Watcher.Updates,
// the latest wins as with Frames). It is closed when the watch ends, at
// once without Options.Sysfs.
func (h *Host) Updates() <-chan sysfsmon.Update { return h.updates }

// Kernel delivers the RDMA lines of the kernel log in order: those its
// ring holds at start, then each as it is written, none dropped (the
// reader waits beyond KernelBuffer). It is closed when the reader ends
// (Close, ctx, or it failed: Options.KernelFailed), at once without
// Options.Kernel.
func (h *Host) Kernel() <-chan sysfsmon.KernelLine { return h.kernel }

// Owners looks a process up in /proc for the consumers that say who
// holds the objects (the owners view, the exporter's owner gauges):
// one sysfsmon.OwnerCache for all of them, each with its own
// owners.Cache over it. Nil without Options.FS.
func (h *Host) Owners() owners.Lookup { return h.owners }

// Refresh asks every reader for a reading now, without waiting for it
// (the dashboard after a shell command, the recorder's last reading);
// while paused it is dropped.
func (h *Host) Refresh() {
	if h.netlink != nil {
		h.netlink.refresh()
	}
	if h.sys != nil {
		h.sys.Refresh()
	}
}

// SetPaused stops (true) or resumes (false) every reader's readings; a
// reading finished while paused is not delivered, and resuming reads
// at once. The kernel log is not paused: its lines are events, not
// readings.
func (h *Host) SetPaused(paused bool) {
	if h.netlink != nil {
		h.netlink.setPaused(paused)
	}
	if h.sys != nil {
		h.sys.SetPaused(paused)
	}
}

// SetInterval changes every reader's pause between readings (d <= 0:
// their defaults); the pause under way restarts with it.
func (h *Host) SetInterval(d time.Duration) {
	if h.netlink != nil {
		h.netlink.setInterval(d)
	}
	if h.sys != nil {
		h.sys.SetInterval(d)
	}
}

// Drain returns once trace has handed the watch every modify the kernel
// had traced when Drain was called (inspect.ModifyQueue.Drain), so that
// the frame after a Refresh then misses none: the recorder's last
// reading. At once, with nil, without trace or while it still loads.
func (h *Host) Drain(ctx context.Context) error {
	if h.netlink == nil {
		return nil
	}
	if q := h.netlink.queue(); q != nil {
		return q.Drain(ctx)
	}
	return nil
}

// Close stops every reader, interrupting the readings under way, waits
// for their goroutines to end and closes the feeds. It does not close
// Options.Conn. It is safe to call more than once.
func (h *Host) Close() error {
	h.once.Do(func() {
		h.cancel()
		if h.netlink != nil {
			h.netlink.close()
		}
		if h.sys != nil {
			h.sys.Close()
		}
		h.wg.Wait()
	})
	return nil
}
