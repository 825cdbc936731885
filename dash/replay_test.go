package dash

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/rec"
)

// TestReplayHostileText: a replayed recording's host line and the
// names its events and alerts give (a device, a comm) are Printable:
// the header and the events view never hand the terminal a control byte
// the file's author wrote.
func TestReplayHostileText(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "hostile.vsrec")
	w, err := rec.Create(ctx, path, rec.Host{Hostname: "\x1b]2;PWN\x07h", Kernel: "\x1b[2J6.1", RDMACore: "\x1b[7m56", Interval: time.Second}, rec.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	t0 := time.Date(2026, 12, 1, 9, 24, 5, 0, time.UTC)
	for i, st := range []rdma.QPState{rdma.QPStateRTS, rdma.QPStateErr} {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(i) * time.Second), QPs: []inspect.QP{
			{Object: inspect.Object{DevName: "rxe\x1b]2;x\x07", PID: 42, Comm: "pp"}, LQPN: 7, Type: rdma.QPTypeRC, State: st}}}
		if err := w.Frame(ctx, inspect.Frame{Seq: uint64(i + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src, stop, err := replaySources(ctx, path, "end")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	h := src.Host
	for _, s := range []string{h.Hostname, h.Kernel, h.RDMACore} {
		if strings.ContainsAny(s, "\x1b\x07") {
			t.Errorf("the replay's header holds control bytes: %q", s)
		}
	}
	if h.Hostname != `\x1b]2;PWN\x07h` {
		t.Errorf("hostname %q, want it Printable", h.Hostname)
	}
	select {
	case f := <-src.Res:
		if len(f.Update.Failed) == 0 {
			t.Fatalf("the replayed reading has no failed QP: %+v", f.Update)
		}
		if k := f.Update.Failed[0].Key.String(); strings.ContainsAny(k, "\x1b\x07") || k != `rxe\x1b]2;x\x07 qp 7` {
			t.Errorf("the alert's object %q, want its device Printable", k)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no replayed reading")
	}
}
