package export

import (
	"log/slog"
	"sync"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Feeds are the readings Follow takes: a live.Host's (live/host.go),
// each source on a feed of its own, and its owners' lookup.
type Feeds interface {
	Frames() <-chan inspect.Frame
	Updates() <-chan sysfsmon.Update
	Kernel() <-chan sysfsmon.KernelLine
	Owners() owners.Lookup
}

// followAlso are handed each reading after the Collector took it (export
// --record's recording, a rec.Feed); neither may block. Nil: nobody.
type followAlso struct {
	Frame func(inspect.Frame)
	Sys   func(sysfsmon.Update)
}

// follow feeds c every reading of h until all its feeds close (the Host
// closed, or its context ended), each feed on a goroutine of its own
// so that none waits for another: the netlink frames (Observe, the
// processes looked up with h's Owners unless Options.Owners gave a
// lookup), the sysfs readings (ObserveSysfs: every reading lists the
// devices, so a device that goes takes its series with it at the next
// reading, and one that comes shows at the next), and the kernel log's
// RDMA lines (ObserveKernelLine: what its ring held at start, then each
// new one), counted while the log is read: once its reader ends (it
// failed: kernelLogFailed says why) they are no longer served, as they
// may fall short for good.
func (c *Collector) follow(h Feeds, also followAlso) {
	if c.opts.Owners == nil {
		c.opts.Owners = h.Owners()
	}
	c.setKernelLog(true)
	var wg sync.WaitGroup
	wg.Go(func() {
		for f := range h.Frames() {
			c.observe(f)
			if also.Frame != nil {
				also.Frame(f)
			}
		}
	})
	wg.Go(func() {
		for u := range h.Updates() {
			c.observeSysfs(u)
			if also.Sys != nil {
				also.Sys(u)
			}
		}
	})
	wg.Go(func() {
		defer c.setKernelLog(false)
		for l := range h.Kernel() {
			c.observeKernelLine(l)
		}
	})
	wg.Wait()
}

// setKernelLog says whether the kernel log's counts are served.
func (c *Collector) setKernelLog(on bool) {
	c.mu.Lock()
	c.kmsgOn = on
	c.mu.Unlock()
}

// kernelLogFailed is live.Options.KernelFailed for the exporter: it says
// once on log why the kernel log is not counted (no privilege to read
// /dev/kmsg, a read that failed).
func kernelLogFailed(log *slog.Logger) func(error) {
	return func(err error) { log.Warn("kernel log: not counted", "err", err) }
}
