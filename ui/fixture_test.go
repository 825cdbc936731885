package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
)

// t0 is the fixtures' clock: goldens must not depend on when they run.
var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// recordedFrames replays the lab's recordings (inspect/testdata, taken
// from the real kernel) in order through one Tracker, one second apart,
// as the watch stream would deliver them.
func recordedFrames(t testing.TB, names ...string) []inspect.Frame {
	t.Helper()
	key := strings.Join(names, ",")
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if f, ok := frameCache[key]; ok {
		return f
	}
	f := replayFrames(t, names)
	frameCache[key] = f
	return f
}

// The recordings and trees are read once per test binary: frames and
// readings are never changed after they are made.
var (
	fixtureMu  sync.Mutex
	frameCache = map[string][]inspect.Frame{}
	sysCache   = map[string]sysfsmon.Update{}
)

func replayFrames(t testing.TB, names []string) []inspect.Frame {
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	var out []inspect.Frame
	for i, name := range names {
		rec, err := inspect.ReadRecording(filepath.Join("..", "inspect", "testdata", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		c, err := inspect.Replay(rec, filepath.Join(t.TempDir(), "proc"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Snapshot(context.Background(), inspect.SnapshotOptions{})
		c.Close()
		if err != nil {
			t.Fatalf("replaying %s: %v", name, err)
		}
		s.Time = t0.Add(time.Duration(i) * time.Second)
		u := tr.Update(s)
		hist := map[inspect.Key][]inspect.StateEvent{}
		for _, q := range s.QPs {
			k := inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}
			hist[k] = tr.History(k)
		}
		out = append(out, inspect.Frame{Seq: uint64(i), Snapshot: s, Update: u, History: hist})
	}
	return out
}

// sysReading reads a recorded sysfs tree twice, one second apart, with
// the first port's data counters bumped in between, so rates and
// sparklines have something to show.
func sysReading(t testing.TB, tree string) sysfsmon.Update {
	t.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if u, ok := sysCache[tree]; ok {
		return u
	}
	u := readTree(t, tree)
	sysCache[tree] = u
	return u
}

func readTree(t testing.TB, tree string) sysfsmon.Update {
	dir := testtree.Copy(t, filepath.Join("..", "sysfsmon", "testdata", tree))
	now := t0
	f, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir),
		sysfsmon.WithClock(func() time.Time { return now }))
	if err != nil {
		t.Fatal(err)
	}
	c1, _ := f.Counters()
	q1, _ := f.IRQs()
	// Traffic in the second reading: mlx5's data in 4-byte words, rxe's
	// packets.
	for p, n := range map[string]uint64{"mlx5_0/ports/1/counters/port_rcv_data": 250000, "mlx5_0/ports/1/counters/port_xmit_data": 250000,
		"rxe0/ports/1/hw_counters/sent_pkts": 1200, "rxe0/ports/1/hw_counters/rcvd_pkts": 1100} {
		if path := filepath.Join(dir, "sys/class/infiniband", p); fileExists(path) {
			testtree.Bump(t, path, n)
		}
	}
	now = now.Add(time.Second)
	devs, err := f.Devices()
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := f.Counters()
	q2, _ := f.IRQs()
	u := sysfsmon.Update{Seq: 1, Time: now, Interval: time.Second, Devices: devs, Counters: c2, IRQs: q2}
	if c1 != nil && c2 != nil {
		u.CounterRates, _ = sysfsmon.CounterRates(c1, c2)
	}
	if q1 != nil && q2 != nil {
		u.IRQRates, _ = sysfsmon.IRQRates(q1, q2)
	}
	return u
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// fakeEngine is a shell that answers from a script, for the pane's
// tests without libibverbs (the real shell runs in the lab tests).
type fakeEngine struct {
	ran    []string
	events chan front.Event
	state  front.State
	block  chan struct{}
}

func newFakeEngine() *fakeEngine { return &fakeEngine{events: make(chan front.Event, 8)} }

func (f *fakeEngine) Exec(ctx context.Context, cmd string) (front.Result, error) {
	f.ran = append(f.ran, cmd)
	if f.block != nil && cmd == "listen" {
		select {
		case <-f.block:
		case <-ctx.Done():
			return front.Result{}, &front.Error{What: "listen: cancelled", Err: ctx.Err()}
		}
	}
	if strings.HasPrefix(cmd, "bogus") {
		return front.Result{}, &front.Error{What: "no command bogus", Why: "it is not a verb", Fix: "help lists the commands"}
	}
	return front.Result{Command: cmd, Text: "ran " + cmd}, nil
}

func (f *fakeEngine) Complete(line string, cursor int) front.Completion {
	if strings.HasPrefix("modify", line) {
		return front.Completion{Start: 0, End: len(line), Items: []front.Suggestion{{Text: "modify", Description: "move a QP to another state"}, {Text: "mr", Description: "register memory"}}}
	}
	return front.Completion{}
}
func (f *fakeEngine) State() front.State         { return f.state }
func (f *fakeEngine) Events() <-chan front.Event { return f.events }
func (f *fakeEngine) Close() error               { return nil }

// fixtureModel is a dashboard fed with the recordings: the rc-rts
// objects after an idle and an rc-init reading (so histories and events
// have steps), sysfs from tree.
func fixtureModel(t testing.TB, tree, theme string, w, h int, withShell bool, with ...func(*Sources)) *model {
	t.Helper()
	th, err := themes.Load(theme, themes.Options{Dark: true})
	if err != nil {
		t.Fatal(err)
	}
	src := Sources{Host: HostInfo{Hostname: "lab", Kernel: "6.1.0-57-amd64", RDMACore: "44.0-2"}, Interval: time.Second}
	if withShell {
		src.Shell = newFakeEngine()
	}
	for _, fn := range with {
		fn(&src)
	}
	m := newModel(src, Options{Theme: theme, View: "qp"}, th)
	m.c.now = func() time.Time { return t0.Add(time.Minute) }
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, f := range recordedFrames(t, "idle", "rc-init", "rc-rts") {
		m.Update(resMsg{m.resBuilder.build(f, front.State{})})
	}
	m.Update(sysMsg{m.sysBuilder.build(sysReading(t, tree), th.ASCII)})
	return m
}

var csiRE = regexp.MustCompile(`\x1b\][^\x07]*\x07`)

// screen is the model's screen without escape sequences.
func screen(m *model) string { return ansi.Strip(csiRE.ReplaceAllString(m.render(), "")) }

func send(m *model, keys ...string) {
	for _, k := range keys {
		m.Update(keyMsg(k))
	}
}

// keyMsg makes the key press a terminal would send for a key name.
func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "ctrl+t":
		return tea.KeyPressMsg{Code: 't', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	r := []rune(k)[0]
	return tea.KeyPressMsg{Code: r, Text: k}
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func mustLoad(t testing.TB, name string, noColor bool) *themes.Theme {
	t.Helper()
	th, err := themes.Load(name, themes.Options{Dark: true, NoColor: noColor})
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// nextFeed runs cmd as the program would, each Cmd of a batch on a
// goroutine of its own, and returns the first feed's reading it yields
// (feedMsg): the way every Feed's reading comes to Update.
func nextFeed(t testing.TB, cmd tea.Cmd) tea.Msg {
	t.Helper()
	found := make(chan tea.Msg, 1)
	var run func(tea.Cmd)
	run = func(c tea.Cmd) {
		if c == nil {
			return
		}
		go func() {
			switch msg := c().(type) {
			case tea.BatchMsg:
				for _, c := range msg {
					run(c)
				}
			case feedMsg:
				select {
				case found <- msg:
				default: // a test waits for one reading at a time
				}
			}
		}()
	}
	run(cmd)
	select {
	case msg := <-found:
		return msg
	case <-time.After(5 * time.Second):
		t.Fatal("no feed's reading came in 5s")
		return nil
	}
}

// jumpMsg is ':' NAME enter as typed.
func (m *model) jumpMsg(name string) tea.Msg {
	send(m, ":")
	typeText(m, name)
	return keyMsg("enter")
}

func ansiStrip(s string) string { return ansi.Strip(s) }

// fetchFleetNow runs the fleet fetch a jump started, synchronously.
func (m *model) fetchFleetNow() tea.Msg {
	v := m.find("fleet").view.(*fleetView)
	v.busy = false
	return v.fetch()()
}
