//go:build lab

package live

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/live/verbsfacts"
	"github.com/verbscope/verbscope/sysfsmon"
)

// TestHostOnRxe: a Host with every reader on the lab's real rxe0, as
// the exporter starts it (RDMA netlink dialed by the Host, trace with
// libibverbs' facts, the devices' limits, the sysfs watch, the kernel
// log): a line written to the kernel log arrives on Kernel, the frames
// carry the device with its limits and, once trace's programs attached,
// trace up; the sysfs readings carry the device; Drain returns with
// trace up; Owners finds this process; Close ends every feed.
func TestHostOnRxe(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan int, 1)
	h, err := Start(context.Background(), Options{Interval: 500 * time.Millisecond, Netlink: true,
		LoadLimits: verbsfacts.LoadLimits(slog.New(slog.DiscardHandler)),
		Trace: &TraceOptions{Env: verbsfacts.TraceEnv(), Warn: func(s string) { t.Logf("trace: %s", s) },
			Ready: func(n int) { ready <- n }},
		FS: fsys, Sysfs: true, Kernel: true, KernelFailed: func(err error) { t.Errorf("kernel log: %v", err) }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()

	// The kernel log: the ring's older RDMA lines come first, then the
	// mark written now.
	mark := fmt.Sprintf("rdma_rxe: live.TestHostOnRxe: mark of pid %d at %d", os.Getpid(), time.Now().UnixNano())
	if err := os.WriteFile("/dev/kmsg", []byte("<6>"+mark+"\n"), 0); err != nil {
		t.Fatalf("writing a mark to /dev/kmsg: %v", err)
	}
	deadline := time.After(labkit.Step)
	for found := false; !found; {
		select {
		case l, ok := <-h.Kernel():
			if !ok {
				t.Fatal("Kernel closed before the mark came")
			}
			if l.Text == mark {
				found = true
				if l.Driver != "rdma_rxe" || l.LevelName() != "info" {
					t.Errorf("the mark: driver %q level %q, want rdma_rxe info", l.Driver, l.LevelName())
				}
			}
		case <-deadline:
			t.Fatalf("the kernel log's mark did not come within %v", labkit.Step)
		}
	}

	labkit.WaitFor(t, labkit.Step, "a frame with "+dev+" and its limits", func() bool {
		f := <-h.Frames()
		if f.Err != nil || f.Snapshot == nil {
			return false
		}
		hasDev, hasLimit := false, false
		for _, d := range f.Snapshot.Devices {
			hasDev = hasDev || d.Name == dev
		}
		for _, l := range f.Update.Limits {
			hasLimit = hasLimit || (l.Dev == dev && l.Limit > 0)
		}
		return hasDev && hasLimit
	})
	labkit.WaitFor(t, labkit.Step, "a sysfs reading with "+dev, func() bool {
		for _, d := range (<-h.Updates()).Devices {
			if d.Name == dev {
				return true
			}
		}
		return false
	})
	select {
	case n := <-ready:
		if n == 0 {
			t.Errorf("trace: 0 programs attached")
		}
	case <-time.After(labkit.Attach):
		t.Fatalf("trace's programs did not attach within %v", labkit.Attach)
	}
	labkit.WaitFor(t, labkit.Step, "a frame with trace up", func() bool {
		f := <-h.Frames()
		return f.Trace != nil && f.Trace.Up
	})
	ctx, cancel := context.WithTimeout(context.Background(), labkit.Step)
	defer cancel()
	if err := h.Drain(ctx); err != nil {
		t.Errorf("Drain with trace up: %v", err)
	}

	comm, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	o, err := h.Owners()(os.Getpid())
	if err != nil || o.TGID != os.Getpid() || o.Comm != strings.TrimSpace(string(comm)) || o.Cmdline == "" {
		t.Errorf("Owners of this process: %+v, %v; want its comm %q and command line", o, err, comm)
	}

	h.Close()
	if !ends(h.Frames()) || !ends(h.Updates()) || !ends(h.Kernel()) {
		t.Error("a feed is still open after Close")
	}
}

// ends reports whether ch closes, what it still holds aside, within
// labkit.Step.
func ends[T any](ch <-chan T) bool {
	limit := time.After(labkit.Step)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return true
			}
		case <-limit:
			return false
		}
	}
}
