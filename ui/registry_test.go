package ui

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/rdma"
)

// probeView is a view added by a test: it counts each QP state of the
// watch's frames, has a key of its own and a detail.
type probeView struct {
	c     *common
	bumps int
	bump  key.Binding
}

func (v *probeView) columns() []column {
	return []column{col("state", "state", 0, false), col("qps", "QPs", 0, true)}
}
func (v *probeView) filter() matcher     { return nil }
func (v *probeView) heading() string     { return "probes, bumped " + strconv.Itoa(v.bumps) }
func (v *probeView) empty() string       { return "no frame yet" }
func (v *probeView) keys() []key.Binding { return []key.Binding{v.bump} }
func (v *probeView) detail(r tableRow) []string {
	return []string{"the probe saw " + r.Cells[1] + " QPs in " + r.Key}
}

func (v *probeView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		v.bumps++
	case resMsg:
		var rows []tableRow
		for st := rdma.QPStateReset; st <= rdma.QPStateErr; st++ {
			if n := msg.d.qpStates[st]; n > 0 {
				s := st.String()
				rows = append(rows, tableRow{Key: s, Cells: []string{s, strconv.Itoa(n)}, Nums: []float64{nan, float64(n)}})
			}
		}
		return rowSet{rows: rows}, true, nil
	}
	return rowSet{}, false, nil
}

// Adding a view is one registry line and the view's own value: the tab
// row, the ':' jump and its aliases, '?', ViewNames, the view's keys,
// its title and its detail all follow.
func TestAddedViewNeedsOnlyTheRegistry(t *testing.T) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	registry = append(slices.Clone(registry), viewSpec{name: "probe", title: "probes", aliases: []string{"pr"},
		make: func(c *common) component {
			return &probeView{c: c, bump: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "bump the probe"))}
		}})

	if !IsView("pr") || !slices.Contains(ViewNames(), "probe") {
		t.Fatalf("the registry does not know the probe: %v", ViewNames())
	}
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false)
	m.Update(m.jumpMsg("pr"))
	if m.cur.name != "probe" {
		t.Fatalf(":pr went to %s", m.cur.name)
	}
	send(m, "b")
	out := screen(m)
	for _, want := range []string{"probes, bumped 1 [1/1]", "  RTS     3", "events doctor fleet probe"} {
		if !strings.Contains(out, want) {
			t.Errorf("the probe's screen lacks %q:\n%s", want, out)
		}
	}
	send(m, "enter")
	if out := screen(m); !strings.Contains(out, "probes: ") || !strings.Contains(out, "the probe saw ") {
		t.Errorf("the probe's detail is not shown:\n%s", out)
	}
	send(m, "esc", "?")
	if out := screen(m); !strings.Contains(out, "bump the probe") || !strings.Contains(out, ":probe") {
		t.Errorf("the help lacks the probe's key or name:\n%s", out)
	}
}

// gaugeReading is a reading of a source the dashboard has never seen,
// and gaugeView the view over it: what a view over new data is, its
// file (here, the test's).
type gaugeReading struct {
	dev   string
	level int
}

type gaugeView struct{ last map[string]int }

func (v *gaugeView) columns() []column {
	return []column{col("dev", "dev", 0, false), col("level", "level", 0, true)}
}
func (v *gaugeView) filter() matcher            { return nil }
func (v *gaugeView) heading() string            { return "gauges" }
func (v *gaugeView) empty() string              { return "no reading yet" }
func (v *gaugeView) keys() []key.Binding        { return nil }
func (v *gaugeView) detail(r tableRow) []string { return []string{"level " + r.Cells[1]} }

func (v *gaugeView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	g, ok := msg.(gaugeReading)
	if !ok {
		return rowSet{}, false, nil
	}
	v.last[g.dev] = g.level
	var rows []tableRow
	for _, dev := range slices.Sorted(maps.Keys(v.last)) {
		n := v.last[dev]
		rows = append(rows, tableRow{Key: dev, Cells: []string{dev, strconv.Itoa(n)}, Nums: []float64{nan, float64(n)}})
	}
	return rowSet{rows: rows}, true, nil
}

// A view over a new source costs its file, its registry line and its
// feed in Sources: the readings come the way the real feeds' do (Init's
// Cmds, then each reading's), the view draws them, and ':' completes
// and reaches it.
func TestAddedSourceNeedsOnlyItsViewAndFeed(t *testing.T) {
	saved := registry
	t.Cleanup(func() { registry = saved })
	registry = append(slices.Clone(registry), viewSpec{name: "gauge", title: "gauges", make: func(*common) component { return &gaugeView{last: map[string]int{}} }})

	ch := make(chan gaugeReading, 1)
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false, func(s *Sources) { s.Feeds = append(s.Feeds, FeedOf(ch)) })
	ch <- gaugeReading{"rxe0", 7}
	_, cmd := m.Update(nextFeed(t, m.Init()))
	ch <- gaugeReading{"mlx5_0", 3}
	m.Update(nextFeed(t, cmd))

	send(m, ":")
	typeText(m, "gau")
	send(m, "tab")
	if got := m.line.Value(); got != "gauge" {
		t.Errorf(":gau tab completed %q, want gauge", got)
	}
	send(m, "enter")
	if m.cur.name != "gauge" {
		t.Fatalf(":gauge went to %s", m.cur.name)
	}
	out := screen(m)
	for _, want := range []string{"gauges [2/2]", "mlx5_0     3", "rxe0       7", "fleet gauge"} {
		if !strings.Contains(out, want) {
			t.Errorf("the gauge's screen lacks %q:\n%s", want, out)
		}
	}
}

// The commands are the registry's words as the views are: ':' completes
// them after the views, runs them, and --view, ViewNames and the tab row
// know only the views.
func TestCommandsAreRegistryWords(t *testing.T) {
	for _, tc := range []struct{ typed, completed string }{
		{"le", "learn"}, {"q", "qp"}, {"qu", "quit"}, {"ev", "events"},
	} {
		m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
		send(m, ":")
		typeText(m, tc.typed)
		send(m, "tab")
		if got := m.line.Value(); got != tc.completed {
			t.Errorf(":%s tab completed %q, want %q", tc.typed, got, tc.completed)
		}
	}
	for _, w := range []string{"learn", "quit", "q"} {
		if IsView(w) || slices.Contains(ViewNames(), w) {
			t.Errorf("%q is a command, not a view: %v", w, ViewNames())
		}
	}
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false)
	if m.Update(m.jumpMsg("learn")); !strings.Contains(screen(m), "no course here") || m.cur.name != "qp" {
		t.Errorf(":learn without a pane should say there is no course and stay:\n%s", screen(m))
	}
	if _, cmd := m.Update(m.jumpMsg("q")); !m.quitting || cmd == nil {
		t.Error(":q should quit")
	}
	if tabs := ansiStrip(m.tabs()); strings.Contains(tabs, "learn") || strings.Contains(tabs, "quit") {
		t.Errorf("a command has a tab: %q", tabs)
	}
}

// A pane is a line of paneRegistry: on by its rule, it takes its width
// left of the shell pane, which keeps the rest.
func TestAddedPaneNeedsOnlyTheRegistry(t *testing.T) {
	saved := paneRegistry
	t.Cleanup(func() { paneRegistry = saved })
	paneRegistry = append([]paneSpec{{name: "note", width: func(int) int { return 21 },
		on:   func(m *model) bool { return m.pane != nil },
		draw: func(*model) []string { return []string{"a note of the test"} }}}, saved...)

	m := fixtureModel(t, "rxe0", "dark", 120, 40, true)
	lines := strings.Split(screen(m), "\n")
	pane := lines[len(lines)-1-m.lay.paneH:]
	if !strings.HasPrefix(pane[0], "a note of the test  │") {
		t.Errorf("the note pane is not left of the shell's:\n%s", strings.Join(pane, "\n"))
	}
	if m.lay.paneW("shell") != 120-21 || m.pane.w != 120-21 {
		t.Errorf("the shell pane is %d (sized %d) wide, want %d", m.lay.paneW("shell"), m.pane.w, 120-21)
	}
	if m := fixtureModel(t, "rxe0", "dark", 120, 40, false); m.lay.paneH != 0 || len(m.lay.panes) != 0 {
		t.Errorf("without a shell no pane is on: %d rows, %d panes", m.lay.paneH, len(m.lay.panes))
	}
}
