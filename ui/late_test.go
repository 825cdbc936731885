package ui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/sysfsmon"
)

// alertsOf is the header's alerts line as drawn.
func alertsOf(m *model) string { return strings.Split(screen(m), "\n")[2] }

// TestLateReadingSaid: a sysfs reading that hangs (a counter file that
// blocks, under sysfsmon's real Watcher) leaves Update answering; once
// none came for three intervals (at least lateFloor) the alerts line
// says the reading is late and how old what is shown is, and the
// reading that ends clears it. A paused dashboard reads nothing, so
// nothing is late; resuming starts the count again.
func TestLateReadingSaid(t *testing.T) {
	dir := testtree.Copy(t, filepath.Join("..", "sysfsmon", "testdata", "rxe0"))
	blocked := testtree.Block(t, filepath.Join(dir, "sys", "devices", "virtual", "infiniband", "rxe0", "ports", "1", "hw_counters", "completer_retry_err"))
	fs, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := fs.Watch(ctx, sysfsmon.WatchOptions{Interval: time.Hour})
	t.Cleanup(func() {
		cancel()
		closed := make(chan struct{})
		go func() { w.Close(); close(closed) }()
		for {
			select {
			case <-closed:
				return
			case <-time.After(5 * time.Millisecond):
				blocked.Release()
			}
		}
	})

	now := t0
	res := make(chan inspect.Frame, 1)
	th := mustLoad(t, "dark", false)
	m := newModel(Sources{Res: res, Sys: w.Updates(), Interval: time.Second}, Options{Theme: "dark"}, th)
	m.c.now = func() time.Time { return now }
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.resLate.due, m.sysLate.due = now, now
	// The sysfs reading blocks at the FIFO: its Cmd waits off the UI
	// goroutine, as the program runs it.
	sys := make(chan tea.Msg, 1)
	go func() { sys <- m.waitSys()() }()
	tick := func(d time.Duration) {
		now = now.Add(d)
		if cmd := m.update(lateTickMsg{}); cmd == nil {
			t.Fatal("the late tick was not armed again")
		}
		m.relayout()
	}
	frame := func() {
		m.Update(resMsg{m.resBuilder.build(recordedFrames(t, "rc-rts")[0], front.State{})})
	}

	frame()
	tick(4 * time.Second)
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("4 s into the first reading (under lateFloor): %q", a)
	}
	frame() // netlink keeps answering
	tick(2 * time.Second)
	if a := alertsOf(m); !strings.Contains(a, "sysfs reading late: none after 6s") || strings.Contains(a, "netlink reading late") {
		t.Errorf("6 s without a sysfs reading: alerts %q, want sysfs late only", a)
	}

	// The reading ends: the alert goes with the message.
	blocked.Await()
	var msg tea.Msg
	select {
	case msg = <-sys:
	case <-time.After(30 * time.Second):
		t.Fatal("the released reading never arrived")
	}
	m.Update(msg)
	frame()
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("after the reading: %q", a)
	}

	// At a 10 s interval, three intervals; the netlink watch hangs now.
	m.interval = 10 * time.Second
	tick(29 * time.Second)
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("29 s at a 10 s interval: %q", a)
	}
	tick(2 * time.Second)
	if a := alertsOf(m); !strings.Contains(a, "netlink reading late: the last is 31s old") || !strings.Contains(a, "sysfs reading late: the last is 31s old") {
		t.Errorf("31 s at a 10 s interval: %q", a)
	}

	// Paused: nothing is read, nothing late; resuming counts afresh.
	send(m, "p")
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("paused: %q", a)
	}
	tick(time.Hour)
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("an hour paused: %q", a)
	}
	send(m, "p")
	tick(20 * time.Second)
	if a := alertsOf(m); strings.Contains(a, "late") {
		t.Errorf("20 s after resuming: %q", a)
	}
	tick(11 * time.Second)
	if a := alertsOf(m); !strings.Contains(a, "netlink reading late: the last is 1h1m2s old") {
		t.Errorf("31 s after resuming an hour's pause: %q", a)
	}
}

// TestLateTickNeedsAPoller: a dashboard without pollers (a replay, a
// test) arms no tick.
func TestLateTickNeedsAPoller(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	if cmd := m.lateTick(); cmd != nil {
		t.Error("a tick armed without a poller to watch")
	}
}
