package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/themes"
)

// Options are the dashboard's settings from the command line.
type Options struct {
	Theme     string // a theme name (built in or a user theme: package themes)
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
	modeTime         // typing a time to jump to after 't' (replay)
)

// typing reports whether the mode is a line being typed (':', '/', 't').
func (md mode) typing() bool { return md == modeCommand || md == modeFilter || md == modeTime }

// page is a registered view on the main area: the view, its table and
// the rows that arrived while another page was shown.
type page struct {
	viewSpec
	view    component
	table   *table
	pending rowSet
	dirty   bool
}

// model is the dashboard's root model; the only one that returns a
// tea.View. It holds the registry's views as pages, routes messages to
// them and lays the screen out (layout.go).
type model struct {
	c     *common
	opts  Options
	w, h  int
	keys  keyMap
	lkeys lessonKeys
	pages []*page
	cur   *page
	mode  mode
	prev  mode // the mode to return to from help
	// helpTop is the first line of the help shown (it scrolls when it
	// does not fit).
	helpTop int
	line    textinput.Model

	detail     detailState
	pane       *shellPane
	paneFocus  bool
	split      paneSplit // how the focused pane shares the screen
	resBuilder *resBuilder
	sysBuilder *sysBuilder
	// feeds are the sources read the one way (feeds.go), by index.
	feeds    []Feed
	paused   bool
	interval time.Duration
	quitting bool
	resErr   error
	sysErr   error
	// resLate and sysLate follow the pollers' readings, to say when one
	// is late (late.go).
	resLate, sysLate lateWatch
	// lay is the screen's layout, set in Update (layout.go).
	lay layout
	// frames is Options.FrameFile.
	frames *frameFile
}

// New builds the dashboard's root model. th is the starting theme (auto
// themes are re-resolved when the terminal tells its background).
func New(src Sources, opts Options, th *themes.Theme) tea.Model { return newModel(src, opts, th) }

func newModel(src Sources, opts Options, th *themes.Theme) *model {
	c := &common{src: src, theme: th, now: time.Now}
	m := &model{c: c, opts: opts, keys: defaultKeyMap(), lkeys: defaultLessonKeys(),
		resBuilder: newResBuilder(), sysBuilder: newSysBuilder(src.Dev), feeds: feeds(src), interval: src.Interval}
	m.keys.replayOn = src.Replay != nil
	m.keys.rewindOn = src.Replay != nil && src.Replay.Position().Rewind
	if m.interval <= 0 {
		m.interval = time.Second
	}
	m.resLate = lateWatch{what: "netlink", due: c.now()}
	m.sysLate = lateWatch{what: "sysfs", due: c.now()}
	for _, s := range views() {
		v := s.make(c)
		t := newTable(s.title, v.columns(), v.filter())
		t.tail = s.tail
		m.pages = append(m.pages, &page{viewSpec: s, view: v, table: t})
	}
	if opts.FrameFile != "" {
		m.frames = &frameFile{path: opts.FrameFile}
	}
	m.cur = m.pages[0]
	if p := m.find(opts.View); p != nil {
		m.cur = p
	}
	c.shown = m.cur.view
	m.line = textinput.New()
	m.line.SetStyles(inputStyles(th))
	if hasShellPane(src) {
		// A replay's pane has no shell of its own: it shows the
		// recorded one (shellreplay.go).
		m.pane = newShellPane(src.Shell, src.History, th)
		m.pane.setRecorded(nil)
		c.shell = &m.pane.state
		if src.Lesson != nil {
			m.startLesson(src.Lesson)
		}
	}
	m.resize(80, 24)
	return m
}

// find returns the page of the view named name or one of its aliases.
func (m *model) find(name string) *page {
	s, ok := lookup(name)
	if !ok {
		return nil
	}
	for _, p := range m.pages {
		if p.name == s.name {
			return p
		}
	}
	return nil
}

// viewKeys are the keys of every view, for the help.
func (m *model) viewKeys() []key.Binding {
	var out []key.Binding
	for _, p := range m.pages {
		out = append(out, p.view.keys()...)
	}
	return out
}

// Init starts the pollers' readers and the look for late readings, asks the terminal's background and
// tells the first view it is shown.
func (m *model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.waitRes(), m.waitSys(), m.lateTick(), m.route(m.cur, shownMsg{})}
	for i := range m.feeds {
		cmds = append(cmds, m.wait(i))
	}
	if m.pane != nil && m.pane.eng != nil {
		cmds = append(cmds, m.pane.events())
	}
	return tea.Batch(cmds...)
}

// View draws the model and changes none of it; with Options.FrameFile
// set it also writes the frame there (frameFile.write), a test's window
// onto what was drawn.
func (m *model) View() tea.View {
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

// startLesson shows the course beside the shell pane, the shell focused.
func (m *model) startLesson(fn func() Lesson) tea.Cmd {
	l := fn()
	m.pane.lessonFn, m.pane.lesson = fn, &l
	m.paneFocus = true
	return m.pane.focus()
}
