package dash

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/ui"
)

// TestRewind: live frames pass through and are kept; [ shows the
// reading before the newest, with a QP that has since vanished, and the
// position says how far behind live; ] at the newest kept reading and
// Resume return to live at once; close removes the file.
func TestRewind(t *testing.T) {
	base := rewindTestBase(t)
	res := make(chan inspect.Frame)
	sys := make(chan sysfsmon.Update)
	src, stop, err := startRewind(context.Background(), ui.Sources{Res: res, Sys: sys}, rec.Host{Hostname: "lab"}, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	r := src.Replay
	t0 := time.Date(2026, 12, 1, 2, 47, 0, 0, time.UTC)
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	frame := func(i int, qpns ...uint32) inspect.Frame {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(i) * time.Second)}
		for _, n := range qpns {
			s.QPs = append(s.QPs, inspect.QP{Object: inspect.Object{DevName: "rxe0", PID: 100, Comm: "pp"}, LQPN: n, Type: rdma.QPTypeRC, State: rdma.QPStateRTS})
		}
		return inspect.Frame{Seq: uint64(i + 1), Snapshot: s, Update: tr.Update(s), History: tr.Histories()}
	}
	next := func(what string) inspect.Frame {
		t.Helper()
		select {
		case f := <-src.Res:
			return f
		case <-time.After(10 * time.Second):
			t.Fatalf("no frame: %s", what)
		}
		return inspect.Frame{}
	}
	qps := func(f inspect.Frame) int { return len(f.Snapshot.QPs) }
	rw := r.(*rewinder)
	kept := func() int {
		rd, err := rec.Open(context.Background(), rw.path)
		if err != nil {
			return 0
		}
		defer rd.Close()
		rs, _ := rd.Readings(context.Background(), "res")
		return len(rs)
	}
	// Three live readings, each kept before the next comes (a second
	// apart, live): QP 17 is there in the first two, gone in the third.
	for i, qpns := range [][]uint32{{17, 18}, {17, 18}, {18}} {
		res <- frame(i, qpns...)
		if f := next("live"); !f.Snapshot.Time.Equal(t0.Add(time.Duration(i) * time.Second)) {
			t.Fatalf("live frame %d at %s", i, f.Snapshot.Time)
		}
		waitFor(t, "the reading kept", func() bool { return kept() == i+1 })
	}
	// [ : the newest kept reading is shown, then the one before.
	r.Step(-1)
	until := func(what string, at time.Duration) inspect.Frame {
		t.Helper()
		for {
			if f := next(what); f.Snapshot.Time.Equal(t0.Add(at)) {
				return f
			}
		}
	}
	until("[ from live", time.Second)
	if p := r.Position(); p.Live || !p.Rewind {
		t.Fatalf("position %+v, want rewinding", p)
	}
	r.Step(-1)
	if f := next("one more back"); qps(f) != 2 || !f.Snapshot.Time.Equal(t0) {
		t.Errorf("one more back: %d QPs at %s, want QP 17 and 18 at the start", qps(f), f.Snapshot.Time)
	}
	waitFor(t, "the position two readings behind", func() bool { return r.Position().Behind == 2*time.Second })
	// A live reading while rewinding is kept, not shown.
	res <- frame(3, 18, 19)
	r.Step(+1)
	if f := next("one forward"); !f.Snapshot.Time.Equal(t0.Add(time.Second)) {
		t.Errorf("one forward at %s, want 1 s", f.Snapshot.Time)
	}
	r.Step(+1)
	until("at the newest kept", 2*time.Second)
	r.Step(+1) // past the newest kept when the rewind began: live
	until("back to live", 3*time.Second)
	if p := r.Position(); !p.Live {
		t.Errorf("position %+v after ] at the end, want live", p)
	}
	r.Step(-1)
	until("rewinding again", 2*time.Second)
	r.Resume()
	until("resumed: the newest live reading", 3*time.Second)
	if _, err := os.Stat(rw.path); err != nil {
		t.Fatalf("no rewind file: %v", err)
	}
	stop()
	stopped = true
	if files, _ := os.ReadDir(base); len(files) != 0 {
		t.Errorf("left behind: %v", files)
	}
}

// waitFor polls ok for up to 10 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
