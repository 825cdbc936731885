package ui

import (
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/themes"
)

// intervals are the refresh steps + and - move through.
var intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// Update handles one message. It never blocks: everything that waits
// was started as a Cmd and comes back here as a message. It ends by
// laying the screen out again, so View only reads.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	cmd := m.update(msg)
	m.relayout()
	return m, cmd
}

func (m *model) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return nil
	case tea.BackgroundColorMsg:
		if m.opts.Theme == "" || m.opts.Theme == "auto" {
			o := m.opts.ThemeOpts
			o.Dark = msg.IsDark()
			if th, err := themes.Load("auto", o); err == nil {
				m.setTheme(th)
			}
		}
		return nil
	case resMsg:
		return m.gotRes(msg.d)
	case kernelMsg:
		return m.gotKernel(msg)
	case resClosedMsg:
		m.resLate.closed, m.resLate.late = true, false
		m.c.note(themes.SlotWarn, "the RDMA netlink watch stopped")
		return nil
	case sysMsg:
		return tea.Batch(m.gotSys(msg.d), m.waitSys())
	case sysClosedMsg:
		m.sysLate.closed, m.sysLate.late = true, false
		return nil
	case lateTickMsg:
		m.judgeLate()
		return m.lateTick()
	case gotoObjectsMsg:
		return m.gotoObjects(msg)
	case openDetailMsg:
		m.openDetail()
		return nil
	case feedMsg:
		return m.gotFeed(msg)
	case verdictsMsg:
		m.c.verdicts = msg.v
		return nil
	case noticeMsg:
		m.c.note(themes.SlotDim, msg.text)
		return nil
	case openViewMsg:
		return m.jump(msg.name)
	case shellDoneMsg, learnMsg, historyErrMsg, replayShellMsg, shellEventMsg, lessonMsg, shellCompleteMsg:
		return m.paneUpdate(msg)
	case tea.PasteMsg:
		return m.paste(msg.Content)
	case tea.MouseWheelMsg:
		m.wheel(msg.Mouse())
		return nil
	case tea.MouseClickMsg:
		return m.click(msg.Mouse())
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	// The views' own messages (doctor's answers, fleet's ticks) and the
	// readings of Sources.Feeds.
	return m.routeAll(msg)
}

// paneUpdate takes the shell pane's messages: a command's end, the
// course started by :learn, the engine's events, a lesson's status,
// completions, the recorded lines of a replay, a history not saved.
func (m *model) paneUpdate(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case learnMsg:
		return m.startCourse(msg)
	case historyErrMsg:
		m.c.note(themes.SlotError, "shell history not saved: "+firstLine(msg.err.Error()))
		return nil
	}
	if m.pane == nil {
		return nil
	}
	switch msg := msg.(type) {
	case shellDoneMsg:
		return tea.Batch(m.pane.done(msg), m.afterShell())
	case replayShellMsg:
		m.pane.setRecorded(msg.lines)
	case shellEventMsg:
		if m.pane.eng == nil || !msg.ok || msg.from != m.pane.eng.Events() {
			// Closed, or the engine before :learn replaced it.
			return nil
		}
		m.pane.event(msg.ev)
		return tea.Batch(m.pane.reread(msg.ev), m.pane.events())
	case lessonMsg:
		if m.pane.lessonFn != nil {
			m.pane.lesson = &msg.lesson
		}
	case shellCompleteMsg:
		m.pane.completed(msg)
	}
	return nil
}

// route gives a message to one page's view and takes the rows it
// answers with.
func (m *model) route(p *page, msg tea.Msg) tea.Cmd {
	rows, ok, cmd := p.view.take(msg)
	if ok {
		m.feed(p, rows)
	}
	p.table.Title = p.title
	if h := p.view.heading(); h != "" {
		p.table.Title = h
	}
	return cmd
}

// routeAll gives a message to every view.
func (m *model) routeAll(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, p := range m.pages {
		cmds = append(cmds, m.route(p, msg))
	}
	return tea.Batch(cmds...)
}

func (m *model) setTheme(th *themes.Theme) {
	m.c.theme = th
	m.line.SetStyles(inputStyles(th))
	if m.pane != nil {
		m.pane.input.SetStyles(inputStyles(th))
	}
}

// gotRes takes a prepared frame: every view takes its rows (the
// selection follows its key), and the next frame is asked for.
func (m *model) gotRes(d *resData) tea.Cmd {
	m.resErr = d.frame.Err
	m.resLate.arrived(m.c.now())
	if old := m.c.res; d.frame.Snapshot == nil && old != nil {
		// a failed snapshot keeps the last good data on screen
		d.rows, d.rowsGen, d.qpStates, d.owners = old.rows, old.rowsGen, old.qpStates, old.owners
		d.frame.Snapshot, d.frame.History = old.frame.Snapshot, old.frame.History
	}
	m.c.res = d
	return tea.Batch(m.routeAll(resMsg{d}), m.waitRes())
}

// gotSys takes a prepared sysfs reading: every view takes its rows.
func (m *model) gotSys(d *sysData) tea.Cmd {
	m.sysErr = d.u.Err
	m.sysLate.arrived(m.c.now())
	m.c.sys = d
	return m.routeAll(sysMsg{d})
}

// feed gives a page its new rows: the shown page's table takes them at
// once, the others when they are shown (sorting 10,000 rows nobody
// looks at is wasted on the UI goroutine).
func (m *model) feed(p *page, rows rowSet) {
	p.pending, p.dirty = rows, true
	if p == m.cur {
		m.apply(p)
	}
}

// apply moves a page's pending rows into its table.
func (m *model) apply(p *page) {
	if !p.dirty {
		return
	}
	// A tail page follows the newest row unless the user moved up to
	// read an older one.
	follow := p.tail && p.table.following()
	p.table.SetRows(p.pending)
	p.pending, p.dirty = rowSet{}, false
	if follow {
		p.table.End()
	}
}

// afterShell refreshes the views at once after a shell command, so the
// objects it created show without waiting for the interval, and saves
// the history.
func (m *model) afterShell() tea.Cmd {
	var cmds []tea.Cmd
	if c := m.c.src.Control; c != nil {
		cmds = append(cmds, func() tea.Msg { c.Refresh(); return nil })
	}
	if save, h := m.c.src.SaveHistory, m.pane.hist; save != nil {
		cmds = append(cmds, func() tea.Msg {
			if err := save(h); err != nil {
				return historyErrMsg{err}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// historyErrMsg is a failed save of the shell history, for the status
// line: the user should learn their history is not being kept.
type historyErrMsg struct{ err error }

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.w < minWidth || m.h < minHeight {
		if key.Matches(msg, m.keys.Quit, m.keys.Cancel) {
			return m.quit()
		}
		return nil
	}
	if m.pane != nil && m.pane.lesson != nil && !m.mode.typing() {
		if cmd := m.lkeys.command(msg); cmd != "" {
			return m.pane.submit(cmd)
		}
	}
	if m.paneFocus && m.pane != nil {
		return m.paneKey(msg)
	}
	switch {
	case m.mode.typing():
		return m.lineKey(msg)
	case m.mode == modeHelp:
		m.helpKey(msg)
		return nil
	}
	if m.replayKey(msg) {
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help) && m.mode == modeNormal && explainsOnHelp(m.cur.view) && m.hasSelection():
		m.openDetail() // the counters view: ? explains the counter
	case key.Matches(msg, k.Help):
		m.prev, m.mode = m.mode, modeHelp
	case key.Matches(msg, k.Focus):
		if m.pane == nil {
			m.c.note(themes.SlotDim, noShellPane)
			return nil
		}
		m.paneFocus = true
		return m.pane.focus()
	case key.Matches(msg, k.Split):
		return m.cycleSplit()
	case key.Matches(msg, k.Command):
		m.startLine(modeCommand, ":", "")
	case key.Matches(msg, k.Filter):
		if m.mode == modeDetail {
			return nil
		}
		m.startLine(modeFilter, "/", strings.Join(m.cur.table.filter, " "))
	case key.Matches(msg, k.Back):
		if m.mode == modeDetail {
			m.mode = modeNormal
			return nil
		}
		if len(m.cur.table.filter) > 0 {
			m.cur.table.SetFilter(nil)
			m.c.note("", "")
		}
	case key.Matches(msg, k.Pause):
		return m.setPaused(!m.paused)
	case key.Matches(msg, k.Faster):
		return m.step(-1)
	case key.Matches(msg, k.Slower):
		return m.step(+1)
	case matchesAny(msg, m.cur.view.keys()):
		m.c.selected, m.c.hasSelected = m.cur.table.Selected()
		return m.route(m.cur, msg)
	case m.mode == modeDetail:
		m.detailKey(msg)
	default:
		m.tableKey(msg)
	}
	return nil
}

// tableKey takes the keys of the shown view's table: open the selected
// row, move, sort.
func (m *model) tableKey(msg tea.KeyPressMsg) {
	k, t := m.keys, m.cur.table
	switch {
	case key.Matches(msg, k.Open):
		m.openDetail()
	case key.Matches(msg, k.Up):
		t.Move(-1)
	case key.Matches(msg, k.Down):
		t.Move(+1)
	case key.Matches(msg, k.Top):
		t.Home()
	case key.Matches(msg, k.Bottom):
		t.End()
	case key.Matches(msg, k.PageUp):
		t.Page(-1)
	case key.Matches(msg, k.PageDown):
		t.Page(+1)
	case key.Matches(msg, k.Sort):
		t.CycleSort()
	case key.Matches(msg, k.Reverse):
		t.Reverse()
	}
}

// explainsOnHelp tells whether ? on view explains its selected row.
func explainsOnHelp(v component) bool {
	e, ok := v.(interface{ explainsOnHelp() bool })
	return ok && e.explainsOnHelp()
}

// hasSelection tells whether the current table has a row selected.
func (m *model) hasSelection() bool {
	_, ok := m.cur.table.Selected()
	return ok
}

// readOnly is the note on typing into the pane in a replay.
const readOnly = "the shell pane is read-only in a replay: it shows the recorded session (esc returns to the view)"

// paneKey gives every key to the shell pane but esc (back to the view)
// and ctrl+c (cancel the running command); in a replay, only esc, the
// split and scrolling.
func (m *model) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	if m.pane.replay && msg.String() != "ctrl+t" && !key.Matches(msg, m.keys.Back) && !m.pane.recordedKey(msg) {
		m.c.note(themes.SlotDim, readOnly)
		return nil
	}
	switch {
	case msg.String() == "ctrl+t": // the Split key that is not a letter
		return m.cycleSplit()
	case key.Matches(msg, m.keys.Back):
		m.paneFocus = false
		m.pane.blur()
		return nil
	case key.Matches(msg, m.keys.Cancel):
		if !m.pane.cancelRunning() {
			if m.pane.input.Value() != "" {
				m.pane.input.SetValue("")
			} else {
				m.c.note(themes.SlotDim, "nothing runs: esc leaves the pane, then q quits")
			}
		}
		return nil
	}
	return m.pane.key(msg)
}

// cycleSplit moves to the next split: the pane focused at its new size,
// or, for the view's split, the view focused and the pane compact.
func (m *model) cycleSplit() tea.Cmd {
	if m.pane == nil {
		m.c.note(themes.SlotDim, noShellPane)
		return nil
	}
	m.split = (m.split + 1) % splitModes
	m.c.note(themes.SlotDim, splitNames[m.split]+"; z or ctrl+t for the next")
	if m.split == splitView {
		m.paneFocus = false
		m.pane.blur()
		return nil
	}
	m.paneFocus = true
	return m.pane.focus()
}

func (m *model) paste(text string) tea.Cmd {
	switch {
	case m.paneFocus && m.pane != nil && m.pane.replay:
		m.c.note(themes.SlotDim, readOnly)
	case m.paneFocus && m.pane != nil:
		return m.pane.paste(text)
	case m.mode.typing():
		m.line.SetValue(m.line.Value() + strings.ReplaceAll(text, "\n", " "))
		m.line.CursorEnd()
		if m.mode == modeFilter {
			m.cur.table.SetFilter(strings.Fields(m.line.Value()))
		}
	}
	return nil
}

func (m *model) quit() tea.Cmd {
	m.quitting = true
	if m.pane != nil {
		m.pane.cancelRunning()
	}
	return tea.Quit
}

func (m *model) startLine(md mode, prompt, value string) {
	m.mode = md
	m.line.Prompt = prompt
	m.line.SetValue(value)
	m.line.CursorEnd()
	m.line.Focus()
}

// lineKey edits the ':' or '/' line; the filter applies as it is typed.
func (m *model) lineKey(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		if m.mode == modeFilter {
			m.cur.table.SetFilter(nil)
		}
		m.mode = modeNormal
		m.line.Blur()
		return nil
	case "enter":
		val := strings.TrimSpace(m.line.Value())
		md := m.mode
		m.mode = modeNormal
		m.line.Blur()
		switch md {
		case modeCommand:
			return m.jump(val)
		case modeTime:
			if err := m.c.src.Replay.SeekTo(val); err != nil {
				m.c.note(themes.SlotWarn, "t: "+err.Error())
			}
			return nil
		}
		m.cur.table.SetFilter(strings.Fields(val))
		if p := m.cur.table.FilterProblem(); p != "" {
			m.c.note(themes.SlotWarn, p)
		}
		return nil
	case "tab":
		if m.mode == modeCommand {
			m.completeView()
		}
		return nil
	case "ctrl+c":
		return m.quit()
	}
	var cmd tea.Cmd
	m.line, cmd = m.line.Update(msg)
	if m.mode == modeFilter {
		m.cur.table.SetFilter(strings.Fields(m.line.Value()))
	}
	return cmd
}

// completeView completes a view's or a command's name after ':'.
func (m *model) completeView() {
	val := strings.ToLower(strings.TrimSpace(m.line.Value()))
	for _, n := range words() {
		if strings.HasPrefix(n, val) {
			m.line.SetValue(n)
			m.line.CursorEnd()
			return
		}
	}
}

// jump does what ':' NAME says: goes to a view (`:qp`, `:dev`) or runs
// a command (`:learn`, `:q`), as the registry lists them.
func (m *model) jump(name string) tea.Cmd {
	if name == "" {
		return nil
	}
	s, ok := lookup(name)
	if !ok {
		m.c.note(themes.SlotWarn, "no view "+strconv.Quote(name)+": views are "+strings.Join(ViewNames(), " "))
		return nil
	}
	return m.run(s)
}

// openDetailMsg asks the root to open the selected row's detail, for a
// view whose enter does something else (owners: i).
type openDetailMsg struct{}

// gotoObjects filters every object view by the words and shows the
// view named (enter on an owners row: the group's objects).
func (m *model) gotoObjects(msg gotoObjectsMsg) tea.Cmd {
	for _, k := range rdma.ResourceKinds() {
		if p := m.find(string(k)); p != nil {
			p.table.SetFilter(msg.words)
		}
	}
	cmd := m.jump(msg.name)
	m.c.note(themes.SlotDim, "filtered by "+strings.Join(msg.words, " ")+" in every object view (esc clears)")
	return cmd
}

func (m *model) setPaused(p bool) tea.Cmd {
	m.paused = p
	if p {
		m.judgeLate()
	} else {
		m.resumed()
	}
	c := m.c.src.Control
	if c == nil {
		return nil
	}
	return func() tea.Msg { c.SetPaused(p); return nil }
}

func (m *model) step(dir int) tea.Cmd {
	i := 0
	for j, d := range intervals {
		if d <= m.interval {
			i = j
		}
	}
	i = min(max(0, i+dir), len(intervals)-1)
	m.interval = intervals[i]
	m.c.note(themes.SlotDim, "refresh every "+m.interval.String())
	c, d := m.c.src.Control, m.interval
	if c == nil {
		return nil
	}
	return func() tea.Msg { c.SetInterval(d); return nil }
}

// wheel scrolls what is under the pointer.
func (m *model) wheel(ms tea.Mouse) {
	delta := 3
	if ms.Button == tea.MouseWheelUp {
		delta = -3
	}
	if m.pane != nil && ms.Y >= m.h-1-m.lay.paneH {
		if delta < 0 {
			m.pane.scroll = min(m.pane.scroll+3, max(0, len(m.pane.lines)-1))
		} else {
			m.pane.scroll = max(0, m.pane.scroll-3)
		}
		return
	}
	if m.mode == modeDetail {
		m.scrollDetail(delta)
		return
	}
	m.cur.table.Move(delta)
}

// click selects the row, the view tab or the pane under the pointer.
func (m *model) click(ms tea.Mouse) tea.Cmd {
	if ms.Button != tea.MouseLeft {
		return nil
	}
	hh := m.lay.headerH
	if m.pane != nil && ms.Y >= m.h-1-m.lay.paneH && ms.Y < m.h-1 {
		if !m.paneFocus {
			m.paneFocus = true
			return m.pane.focus()
		}
		return nil
	}
	if m.paneFocus && m.pane != nil {
		m.paneFocus = false
		m.pane.blur()
	}
	if ms.Y == hh-1 {
		if v := m.tabAt(ms.X); v != nil {
			return m.jump(v.name)
		}
		return nil
	}
	if m.mode == modeNormal && ms.Y >= hh {
		if d, ok := m.cur.view.(drawn); ok {
			return m.jump(d.openAt(ms.X, ms.Y-hh, m.w, m.lay.mainH))
		}
		m.cur.table.ClickRow(ms.Y - hh)
	}
	return nil
}
