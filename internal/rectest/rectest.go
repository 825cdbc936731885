// Package rectest makes small recordings (rec) for the tests of the
// packages that read or keep them (cli's record info and export,
// export's --record rotation).
// It is only imported by tests.
package rectest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/rec"
)

// Small records two readings into a new file in t's temporary
// folder and returns its path: QP 7 of pp (pid 42) on rxe0 appears in
// RTS, then is gone. Host labhost, kernel 6.1.0, read every second.
func Small(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "small.vsrec")
	ctx := context.Background()
	w, err := rec.Create(ctx, path, rec.Host{Hostname: "labhost", Kernel: "6.1.0", Devices: []string{"rxe0"}, Interval: time.Second}, rec.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	t0 := time.Date(2026, 12, 1, 9, 24, 5, 0, time.UTC)
	q := inspect.QP{Object: inspect.Object{DevName: "rxe0", PID: 42, Comm: "pp"}, LQPN: 7, Type: rdma.QPTypeRC, State: rdma.QPStateRTS}
	for i, s := range []*inspect.Snapshot{{Time: t0, QPs: []inspect.QP{q}}, {Time: t0.Add(time.Second)}} {
		if err := w.Frame(ctx, inspect.Frame{Seq: uint64(i + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
