package cli

import (
	"context"
	"encoding/csv"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/rec"
)

// hostileRecording is a recording whose every word is an attack on
// the terminal that shows it (retitle, clear, reverse video) or on the
// spreadsheet that opens its CSV (a formula): its host, device, a
// failed reading's error and its processes' comms.
func hostileRecording(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostile.vsrec")
	ctx := context.Background()
	h := rec.Host{Hostname: "\x1b]2;PWN\x07host", Kernel: "\x1b[2J6.1", RDMACore: "\x1b[7m56", Devices: []string{"rxe\x1b[7m0"}, Interval: time.Second}
	w, err := rec.Create(ctx, path, h, rec.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	t0 := time.Date(2026, 12, 1, 9, 24, 5, 0, time.UTC)
	obj := func(comm string) inspect.Object { return inspect.Object{DevName: "rxe\x1b[7m0", PID: 42, Comm: comm} }
	s := &inspect.Snapshot{Time: t0, QPs: []inspect.QP{
		{Object: obj("=1+2\x1b]2;x\x07"), LQPN: 7, Type: rdma.QPTypeRC, State: rdma.QPStateRTS},
		{Object: obj("@SUM(A1)"), LQPN: 8, Type: rdma.QPTypeRC, State: rdma.QPStateRTS},
		{Object: obj("-cmd"), LQPN: 9, Type: rdma.QPTypeRC, State: rdma.QPStateRTS},
	}}
	frames := []inspect.Frame{
		{Seq: 1, Snapshot: s, Update: tr.Update(s), History: tr.Histories()},
		{Seq: 2, Err: errors.New("\x1b]2;gap\x07failed")},
	}
	for _, f := range frames {
		if err := w.Frame(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRecordHostileText: record info and record export --csv print a
// recording's words Printable (no control byte reaches the terminal),
// and a CSV cell a spreadsheet would run as a formula begins with a '.
func TestRecordHostileText(t *testing.T) {
	path := hostileRecording(t)
	code, out, errs := runCLI("record", "info", path)
	if code != 0 {
		t.Fatalf("record info: status %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("record info wrote control bytes:\n%q", out)
	}
	for _, want := range []string{`host       \x1b]2;PWN\x07host · kernel \x1b[2J6.1 · rdma-core \x1b[7m56 · devices rxe\x1b[7m0`, `failed: \x1b]2;gap\x07failed`} {
		if !strings.Contains(out, want) {
			t.Errorf("record info should say %s:\n%s", want, out)
		}
	}
	code, out, errs = runCLI("record", "export", path, "--csv")
	if code != 0 {
		t.Fatalf("record export --csv: status %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("record export --csv wrote control bytes:\n%q", out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	comms := map[string]bool{}
	for _, r := range rows[1:] {
		comms[r[7]] = true
		if r[3] != `rxe\x1b[7m0` {
			t.Errorf("dev cell %q, want rxe\\x1b[7m0", r[3])
		}
	}
	for _, want := range []string{`'=1+2\x1b]2;x\x07`, "'@SUM(A1)", "'-cmd"} {
		if !comms[want] {
			t.Errorf("no comm cell %s in %v", want, comms)
		}
	}
}

// TestRecordDefaultMaxSize: a recording is bounded unless told, and
// the help says so.
func TestRecordDefaultMaxSize(t *testing.T) {
	if n, err := parseSize(defaultRecordMax); err != nil || n != 1<<30 {
		t.Errorf("the default --max-size %q is %d (%v), want 1 GiB", defaultRecordMax, n, err)
	}
	_, out, errs := runCLI("record", "--help")
	for _, want := range []string{"--max-size is 1GiB unless told (0: no bound)", "(default 1GiB)"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("record --help should say %s:\n%s%s", want, out, errs)
		}
	}
}
