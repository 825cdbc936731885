package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
)

// The smallest terminal the dashboard draws in; below it, it says so.
const (
	MinWidth  = 60
	MinHeight = 16
)

// Options are the dashboard's settings from the command line.
type Options struct {
	Theme     string // a theme name (themes.Builtin or a user theme)
	ThemeOpts themes.Options
	// View is the view shown first ("qp" when empty).
	View string
	// FrameFile, when set, receives every new frame as text (see
	// frameFile): the render tests' way to know what should be on screen.
	FrameFile string
}

// mode is what the keyboard is doing in the main area.
type mode int

const (
	modeNormal  mode = iota
	modeCommand      // typing a view name after ':'
	modeFilter       // typing a filter after '/'
	modeHelp         // the '?' screen
	modeDetail       // an object opened with enter
)

// viewState is one view of the main area.
type viewState struct {
	name    string
	aliases []string
	title   string
	table   *Table
	kind    inspect.Kind // object views
	group   string       // "res", "sys", "events", "doctor"
	// pending holds rows that arrived while another view was shown.
	pending []Row
	dirty   bool
}

// Model is the dashboard's root model; the only one that returns a
// tea.View.
type Model struct {
	// hints caches the footer's key hints (keyHints).
	hints struct {
		key hintsKey
		s   string
	}
	src   Sources
	opts  Options
	keys  KeyMap
	pkeys paneKeys
	theme *themes.Theme

	w, h  int
	views []*viewState
	cur   *viewState
	mode  mode
	prev  mode // the mode to return to from help
	// helpTop is the first line of the help shown (it scrolls when it
	// does not fit).
	helpTop int
	line    textinput.Model

	detail     detailState
	pane       *shellPane
	paneFocus  bool
	res        *resData
	sys        *sysData
	pump       *pump
	sysPump    *sysPump
	doctor     []DoctorCheck
	doctorErr  error
	doctorBusy bool
	doctorAt   time.Time
	paused     bool
	interval   time.Duration
	status     string
	statusSlot themes.Slot
	quitting   bool
	resErr     error
	sysErr     error
	fleetBusy  bool
	fleetErr   error
	fleetAt    time.Time
	fleetSeq   int
	// now is the clock (fixed in tests).
	now func() time.Time
	// frames is Options.FrameFile.
	frames *frameFile
}

// New builds the dashboard. th is the starting theme (auto themes are
// re-resolved when the terminal tells its background).
func New(src Sources, opts Options, th *themes.Theme) *Model {
	m := &Model{src: src, opts: opts, keys: DefaultKeyMap(), pkeys: defaultPaneKeys(), theme: th,
		pump: newPump(), sysPump: newSysPump(src.Dev), interval: src.Interval, w: 80, h: 24, now: time.Now}
	if m.interval <= 0 {
		m.interval = time.Second
	}
	for _, v := range resViews {
		m.views = append(m.views, &viewState{name: v.name, title: v.title, kind: v.kind, group: "res",
			table: NewTable(v.title, v.cols, rowMatcher(string(v.kind)))})
	}
	m.views[len(m.views)-1].aliases = []string{"cmid", "cm-id"}
	m.views[0].aliases = []string{"qps"}
	for _, s := range []struct {
		name, title string
		aliases     []string
	}{
		{"dev", "devices", []string{"devices", "device"}},
		{"port", "ports", []string{"ports", "link"}},
		{"gid", "GIDs", []string{"gids"}},
		{"irq", "IRQs", []string{"irqs"}},
		{"counters", "counters", []string{"counter", "stat"}},
	} {
		m.views = append(m.views, &viewState{name: s.name, title: s.title, aliases: s.aliases, group: "sys",
			table: NewTable(s.title, sysColumns(s.name), rowMatcher(sysKind(s.name)))})
	}
	m.views = append(m.views,
		&viewState{name: "events", title: "events", aliases: []string{"event"}, group: "events", table: NewTable("events", eventCols, nil)},
		&viewState{name: "doctor", title: "doctor", group: "doctor", table: NewTable("doctor", doctorCols, nil)},
		&viewState{name: "fleet", title: "fleet", aliases: []string{"hosts"}, group: "fleet", table: NewTable("fleet", fleetCols, nil)})
	if opts.FrameFile != "" {
		m.frames = &frameFile{path: opts.FrameFile}
	}
	m.cur = m.views[0]
	if v := m.find(opts.View); v != nil {
		m.cur = v
	}
	m.line = textinput.New()
	m.line.SetStyles(inputStyles(th))
	if src.Shell != nil {
		m.pane = newShellPane(src.Shell, src.History, th)
	}
	return m
}

// find returns the view named name or one of its aliases.
func (m *Model) find(name string) *viewState {
	name = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), ":")
	for _, v := range m.views {
		if v.name == name {
			return v
		}
		for _, a := range v.aliases {
			if a == name {
				return v
			}
		}
	}
	return nil
}

func (m *Model) viewNames() []string {
	out := make([]string, len(m.views))
	for i, v := range m.views {
		out[i] = v.name
	}
	return out
}

// Init starts the pollers' readers and asks the terminal's background.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.waitRes(), m.waitSys(), m.waitNotice()}
	if m.pane != nil {
		cmds = append(cmds, m.pane.events())
	}
	switch m.cur.group {
	case "doctor":
		cmds = append(cmds, m.runDoctor())
	case "fleet":
		cmds = append(cmds, m.fetchFleet(), m.fleetTick())
	}
	return tea.Batch(cmds...)
}

// Message types of the pollers.
type (
	resMsg       struct{ d *resData }
	resClosedMsg struct{}
	sysMsg       struct{ d *sysData }
	sysClosedMsg struct{}
	doctorMsg    struct {
		checks []DoctorCheck
		err    error
	}
)

// waitRes waits for the next watch frame and prepares it (in the Cmd's
// goroutine: building 10,000 rows is not the UI's work).
func (m *Model) waitRes() tea.Cmd {
	if m.src.Res == nil {
		return nil
	}
	ch, p := m.src.Res, m.pump
	var st front.State
	if m.pane != nil {
		st = m.pane.state
	}
	return func() tea.Msg {
		f, ok := <-ch
		if !ok {
			return resClosedMsg{}
		}
		return resMsg{p.prepare(f, st)}
	}
}

// noticeMsg is one line of Sources.Notices.
type noticeMsg struct{ text string }

func (m *Model) waitNotice() tea.Cmd {
	ch := m.src.Notices
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return nil
		}
		return noticeMsg{s}
	}
}

func (m *Model) waitSys() tea.Cmd {
	if m.src.Sys == nil {
		return nil
	}
	ch, p, ascii := m.src.Sys, m.sysPump, m.theme.ASCII
	return func() tea.Msg {
		u, ok := <-ch
		if !ok {
			return sysClosedMsg{}
		}
		return sysMsg{p.prepare(u, ascii)}
	}
}

// View composes the screen: header, the main area, the shell pane and
// the footer, exactly w×h.
func (m *Model) View() tea.View {
	frame := m.render()
	if m.quitting {
		frame = ""
	}
	m.frames.write(frame)
	v := tea.NewView(frame)
	if !m.quitting {
		v.AltScreen = true
		v.MouseMode = tea.MouseModeCellMotion
		v.WindowTitle = "verbscope"
	}
	return v
}

func (m *Model) render() string {
	if m.w < MinWidth || m.h < MinHeight {
		return tooSmall(m.theme, m.w, m.h)
	}
	header := m.header()
	footer := m.footer()
	hh := strings.Count(header, "\n") + 1
	paneH := m.paneHeight()
	mainH := m.h - hh - 1 - paneH
	parts := []string{header, m.mainArea(mainH)}
	if paneH > 0 {
		parts = append(parts, m.pane.render(m.theme, m.w, paneH, m.paneFocus))
	}
	parts = append(parts, footer)
	return strings.Join(parts, "\n")
}

// paneHeight gives the shell pane about 40% of the screen when it has
// focus and a third otherwise.
func (m *Model) paneHeight() int {
	if m.pane == nil || m.mode == modeHelp {
		// The help takes the pane's room too: it is read, not typed in.
		return 0
	}
	if m.paneFocus {
		return max(7, m.h*2/5)
	}
	return max(6, m.h/3)
}

func tooSmall(th *themes.Theme, w, h int) string {
	msg := "terminal too small: " + itoa(w) + "×" + itoa(h) + "; verbscope needs at least " + itoa(MinWidth) + "×" + itoa(MinHeight) + " (q quits)"
	lines := wrap(msg, max(10, w))
	for len(lines) < h {
		lines = append(lines, "")
	}
	return th.Render(themes.SlotWarn, strings.Join(lines[:max(1, h)], "\n"))
}

// ViewNames lists the views `:` jumps to.
func ViewNames() []string {
	m := New(Sources{}, Options{}, mustTheme())
	return m.viewNames()
}

// IsView reports whether name names a view or one of its aliases.
func IsView(name string) bool {
	m := New(Sources{}, Options{}, mustTheme())
	return m.find(name) != nil
}

func mustTheme() *themes.Theme {
	th, _ := themes.Load("mono", themes.Options{})
	return th
}
