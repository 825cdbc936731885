package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace/pacetest"
	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/sysfsmon"
)

const waitLimit = pacetest.WaitLimit

// replayConn is a Conn whose fake kernel answers with the replies
// recorded in inspect/testdata/NAME.json, each request once gate lets
// it (nil: at once).
func replayConn(t *testing.T, name string, gate <-chan struct{}) *inspect.Conn {
	t.Helper()
	rec, err := inspect.ReadRecording(filepath.Join("..", "inspect", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	fn, err := inspect.ReplayFunc(rec)
	if err != nil {
		t.Fatal(err)
	}
	c := inspect.NewConn(nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		if gate != nil {
			<-gate
		}
		return fn(reqs)
	}))
	proc := filepath.Join(t.TempDir(), "proc")
	if err := rec.WriteProc(proc); err != nil {
		t.Fatal(err)
	}
	c.SetProcRoot(proc)
	t.Cleanup(func() { c.Close() })
	return c
}

// fixtureFS reads a copy of the lab's rxe0 sysfs tree, which the test
// may change before the FS reads it.
func fixtureFS(t *testing.T) (*sysfsmon.FS, string) {
	t.Helper()
	dir := testtree.Copy(t, filepath.Join("..", "sysfsmon", "testdata", "rxe0"))
	fs, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir))
	if err != nil {
		t.Fatal(err)
	}
	return fs, dir
}

// receive waits for one value on ch, failing the test if none comes or
// ch closes.
func receive[T any](t *testing.T, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: the feed closed, want a value", what)
		}
		return v
	case <-time.After(waitLimit):
		t.Fatalf("%s: nothing came within %v", what, waitLimit)
	}
	var zero T
	return zero
}

// none fails the test if ch holds a value now.
func none[T any](t *testing.T, what string, ch <-chan T) {
	t.Helper()
	select {
	case v, ok := <-ch:
		t.Fatalf("%s: got %+v (open %v), want nothing yet", what, v, ok)
	default:
	}
}

// TestFeedsIndependent: each source has its own feed. With netlink's
// dump held up and a sysfs counter that blocks, a kernel log line still
// arrives; the sysfs reading arrives once its file answers, with the
// dump still held; the frame last, once netlink answers.
func TestFeedsIndependent(t *testing.T) {
	fs, dir := fixtureFS(t)
	blocked := testtree.Block(t, filepath.Join(dir, "sys", "devices", "virtual", "infiniband", "rxe0", "ports", "1", "hw_counters", "completer_retry_err"))
	kmsg := filepath.Join(dir, "dev", "kmsg")
	if err := os.MkdirAll(filepath.Dir(kmsg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(kmsg, 0o600); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	h, err := Start(context.Background(), Options{Interval: time.Hour, Netlink: true, Conn: replayConn(t, "idle", gate),
		FS: fs, Sysfs: true, Kernel: true})
	if err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	t.Cleanup(func() {
		go func() { h.Close(); close(closed) }()
		for {
			select {
			case <-closed:
				return
			case <-time.After(5 * time.Millisecond):
				blocked.Release() // each sysfs reading blocks at the FIFO
			}
		}
	})

	// The kernel's side of /dev/kmsg: one record per write, as the
	// kernel hands them out. Opening waits for the Host's reader.
	w, err := os.OpenFile(kmsg, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteString("4,7,5,c;infiniband rxe0: DMA mapping error\n DEVICE=+infiniband:rxe0\n"); err != nil {
		t.Fatal(err)
	}
	l := receive(t, "kernel line", h.Kernel())
	if l.Device != "rxe0" || l.Driver != "rdma_rxe" || l.Text != "infiniband rxe0: DMA mapping error" {
		t.Errorf("kernel line %+v, want rxe0's DMA mapping error", l)
	}
	none(t, "frame while netlink is held", h.Frames())
	none(t, "sysfs reading while its counter blocks", h.Updates())

	blocked.Await()
	u := receive(t, "sysfs reading", h.Updates())
	if len(u.Devices) != 1 || u.Devices[0].Name != "rxe0" {
		t.Errorf("sysfs reading: %d devices %+v, want rxe0", len(u.Devices), u.Devices)
	}
	none(t, "frame while netlink is held", h.Frames())

	close(gate)
	f := receive(t, "frame", h.Frames())
	if f.Err != nil || f.Snapshot == nil || len(f.Snapshot.Devices) != 1 || f.Snapshot.Devices[0].Name != "rxe0" {
		t.Fatalf("frame: err %v, snapshot %+v; want rxe0's", f.Err, f.Snapshot)
	}
	if _, err := w.WriteString("6,8,6,-;infiniband rxe0: set active\n DEVICE=+infiniband:rxe0\n"); err != nil {
		t.Fatal(err)
	}
	if l := receive(t, "second kernel line", h.Kernel()); l.Text != "infiniband rxe0: set active" {
		t.Errorf("second kernel line %q", l.Text)
	}
}

// TestDialRetries: without RDMA netlink the Host hands each failed try
// as a frame and tries again (here at once on Refresh, the interval
// being an hour); once it answers, frames come from the watch of the
// connection it dialed, which Close closes.
func TestDialRetries(t *testing.T) {
	conn := replayConn(t, "idle", nil)
	var tries atomic.Int32
	noRDMA := fmt.Errorf("inspect: dial: %w", inspect.ErrNoRDMA)
	o := Options{Interval: time.Hour, Netlink: true, dial: func() (*inspect.Conn, error) {
		if tries.Add(1) <= 2 {
			return nil, noRDMA
		}
		return conn, nil
	}}
	h, err := Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for i := range 2 {
		if f := receive(t, "frame of a failed try", h.Frames()); !errors.Is(f.Err, inspect.ErrNoRDMA) || f.Snapshot != nil {
			t.Fatalf("try %d: frame err %v, want ErrNoRDMA", i+1, f.Err)
		}
		h.Refresh()
	}
	if f := receive(t, "first frame once dialed", h.Frames()); f.Err != nil || f.Seq != 1 || f.Snapshot == nil {
		t.Fatalf("frame after the third try: seq %d err %v", f.Seq, f.Err)
	}
	if n := tries.Load(); n != 3 {
		t.Errorf("%d tries to dial, want 3", n)
	}
	h.Close()
	if _, ok := <-h.Frames(); ok {
		t.Error("Frames still open after Close")
	}
	if _, err := conn.Devices(); !errors.Is(err, inspect.ErrClosed) {
		t.Errorf("the dialed connection after Close: %v, want it closed", err)
	}
}

// TestControls: a Refresh reaches the netlink watch and the sysfs
// watch alike; the readers a Host was not asked for have feeds that
// are closed, so a consumer ranging over every feed ends; a given
// connection stays open after Close.
func TestControls(t *testing.T) {
	fs, _ := fixtureFS(t)
	conn := replayConn(t, "idle", nil)
	h, err := Start(context.Background(), Options{Interval: time.Hour, Netlink: true, Conn: conn, FS: fs, Sysfs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	f1, u1 := receive(t, "first frame", h.Frames()), receive(t, "first sysfs reading", h.Updates())
	h.Refresh()
	if f2 := receive(t, "frame after Refresh", h.Frames()); f2.Seq != f1.Seq+1 {
		t.Errorf("frame after Refresh: seq %d, want %d", f2.Seq, f1.Seq+1)
	}
	if u2 := receive(t, "sysfs reading after Refresh", h.Updates()); !u2.Time.After(u1.Time) {
		t.Errorf("sysfs reading after Refresh at %v, not after the first's %v", u2.Time, u1.Time)
	}
	if _, ok := <-h.Kernel(); ok {
		t.Error("Kernel delivered a line without Options.Kernel")
	}
	if err := h.Drain(context.Background()); err != nil {
		t.Errorf("Drain without trace: %v, want nil at once", err)
	}
	if h.Owners() == nil {
		t.Error("Owners is nil with an FS")
	}
	h.Close()
	if _, err := conn.Devices(); err != nil {
		t.Errorf("the caller's connection after Close: %v, want it open", err)
	}
}

// TestKernelFailed: a kernel log that cannot be read is said once, and
// its feed closes.
func TestKernelFailed(t *testing.T) {
	fs, _ := fixtureFS(t) // the fixture has no /dev/kmsg
	failed := make(chan error, 2)
	h, err := Start(context.Background(), Options{FS: fs, Kernel: true, KernelFailed: func(err error) { failed <- err }})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, ok := <-h.Kernel(); ok {
		t.Fatal("Kernel delivered a line from a missing log")
	}
	if err := receive(t, "kernel log failure", failed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("KernelFailed heard %v, want no /dev/kmsg", err)
	}
	if _, ok := <-h.Frames(); ok {
		t.Error("Frames delivered without Options.Netlink")
	}
	if _, ok := <-h.Updates(); ok {
		t.Error("Updates delivered without Options.Sysfs")
	}
}

// TestOptionsCheck: options that cannot work together are refused with
// what to set.
func TestOptionsCheck(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Sysfs: true}, "Options.FS is nil"},
		{Options{Kernel: true}, "give it sysfsmon.NewDefaultFS()"},
		{Options{Trace: &TraceOptions{}}, "set Options.Netlink too"},
	} {
		if _, err := Start(context.Background(), c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Start(%+v): %v, want an error saying %q", c.o, err, c.want)
		}
	}
}
