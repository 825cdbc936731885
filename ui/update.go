package ui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/themes"
)

// intervals are the refresh steps + and - move through.
var intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// Update handles one message. It never blocks: everything that waits
// was started as a Cmd and comes back here as a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m, nil
	case tea.BackgroundColorMsg:
		if m.opts.Theme == "" || m.opts.Theme == "auto" {
			o := m.opts.ThemeOpts
			o.Dark = msg.IsDark()
			if th, err := themes.Load("auto", o); err == nil {
				m.setTheme(th)
			}
		}
		return m, nil
	case resMsg:
		return m, m.gotRes(msg.d)
	case resClosedMsg:
		m.note(themes.SlotWarn, "the RDMA netlink watch stopped")
		return m, nil
	case sysMsg:
		m.gotSys(msg.d)
		return m, m.waitSys()
	case sysClosedMsg:
		return m, nil
	case doctorMsg:
		m.doctorBusy, m.doctor, m.doctorErr, m.doctorAt = false, msg.checks, msg.err, m.now()
		m.fillDoctor()
		return m, nil
	case noticeMsg:
		m.note(themes.SlotDim, msg.text)
		return m, m.waitNotice()
	case fleetMsg:
		m.gotFleet(msg)
		return m, nil
	case fleetTickMsg:
		if msg.seq != m.fleetSeq || m.cur.group != "fleet" {
			return m, nil // an old loop, or the view is not shown
		}
		return m, tea.Batch(m.fetchFleet(), m.fleetTick())
	case shellDoneMsg:
		if m.pane == nil {
			return m, nil
		}
		cmd := m.pane.done(msg)
		return m, tea.Batch(cmd, m.afterShell())
	case historyErrMsg:
		m.note(themes.SlotError, "shell history not saved: "+firstLine(msg.err.Error()))
		return m, nil
	case shellEventMsg:
		if m.pane == nil || !msg.ok {
			return m, nil
		}
		m.pane.event(msg.ev)
		return m, m.pane.events()
	case shellCompleteMsg:
		if m.pane != nil {
			m.pane.completed(msg)
		}
		return m, nil
	case tea.PasteMsg:
		return m, m.paste(msg.Content)
	case tea.MouseWheelMsg:
		m.wheel(msg.Mouse())
		return m, nil
	case tea.MouseClickMsg:
		return m, m.click(msg.Mouse())
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) setTheme(th *themes.Theme) {
	m.theme = th
	m.line.SetStyles(inputStyles(th))
	if m.pane != nil {
		m.pane.input.SetStyles(inputStyles(th))
	}
}

// gotRes takes a prepared frame: it replaces every object table's data
// (the selection follows its key) and asks for the next frame.
func (m *Model) gotRes(d *resData) tea.Cmd {
	m.resErr = d.frame.Err
	if d.frame.Snapshot == nil && m.res != nil {
		// a failed snapshot keeps the last good data on screen
		d.rows, d.qpStates = m.res.rows, m.res.qpStates
		d.frame.Snapshot, d.frame.History = m.res.frame.Snapshot, m.res.frame.History
	}
	m.res = d
	for _, v := range m.views {
		switch v.group {
		case "res":
			m.feed(v, d.rows[v.kind])
		case "events":
			m.feed(v, d.events)
		}
	}
	return m.waitRes()
}

func (m *Model) gotSys(d *sysData) {
	m.sysErr = d.u.Err
	m.sys = d
	for _, v := range m.views {
		if v.group == "sys" {
			m.feed(v, d.rows[v.name])
		}
	}
}

// feed gives a view its new rows: the shown view's table takes them at
// once, the others when they are shown (sorting 10,000 rows nobody
// looks at is wasted on the UI goroutine).
func (m *Model) feed(v *viewState, rows []Row) {
	v.pending, v.dirty = rows, true
	if v == m.cur {
		m.apply(v)
	}
}

// apply moves a view's pending rows into its table.
func (m *Model) apply(v *viewState) {
	if !v.dirty {
		return
	}
	// The events view follows the newest event unless the user moved
	// up to read an older one.
	follow := v.group == "events" && v.table.cursor >= len(v.table.view)-1
	v.table.SetRows(v.pending)
	v.pending, v.dirty = nil, false
	if follow {
		v.table.End()
	}
}

// afterShell refreshes the views at once after a shell command, so the
// objects it created show without waiting for the interval, and saves
// the history.
func (m *Model) afterShell() tea.Cmd {
	var cmds []tea.Cmd
	if c := m.src.Control; c != nil {
		cmds = append(cmds, func() tea.Msg { c.Refresh(); return nil })
	}
	if save, h := m.src.SaveHistory, m.pane.hist; save != nil {
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

func (m *Model) note(slot themes.Slot, text string) {
	m.status, m.statusSlot = text, slot
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	if m.w < MinWidth || m.h < MinHeight {
		if key.Matches(msg, m.keys.Quit, m.keys.Cancel) {
			return m.quit()
		}
		return nil
	}
	if m.paneFocus && m.pane != nil {
		return m.paneKey(msg)
	}
	switch m.mode {
	case modeCommand, modeFilter:
		return m.lineKey(msg)
	case modeHelp:
		m.helpKey(msg)
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel), key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.prev, m.mode = m.mode, modeHelp
	case key.Matches(msg, k.Focus):
		if m.pane == nil {
			m.note(themes.SlotDim, "no shell pane: this dashboard was started without the verbs shell")
			return nil
		}
		m.paneFocus = true
		return m.pane.focus()
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
			m.note("", "")
		}
	case key.Matches(msg, k.Pause):
		return m.setPaused(!m.paused)
	case key.Matches(msg, k.Faster):
		return m.step(-1)
	case key.Matches(msg, k.Slower):
		return m.step(+1)
	case key.Matches(msg, k.Rerun) && m.cur.group == "doctor":
		return m.runDoctor()
	case m.mode == modeDetail:
		m.detailKey(msg)
	case key.Matches(msg, k.Open):
		m.openDetail()
	case key.Matches(msg, k.Up):
		m.cur.table.Move(-1)
	case key.Matches(msg, k.Down):
		m.cur.table.Move(+1)
	case key.Matches(msg, k.Top):
		m.cur.table.Home()
	case key.Matches(msg, k.Bottom):
		m.cur.table.End()
	case key.Matches(msg, k.PageUp):
		m.cur.table.Page(-1)
	case key.Matches(msg, k.PageDown):
		m.cur.table.Page(+1)
	case key.Matches(msg, k.Sort):
		m.cur.table.CycleSort()
	case key.Matches(msg, k.Reverse):
		m.cur.table.Reverse()
	}
	return nil
}

// paneKey gives every key to the shell pane but esc (back to the view)
// and ctrl+c (cancel the running command).
func (m *Model) paneKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Back):
		m.paneFocus = false
		m.pane.blur()
		return nil
	case key.Matches(msg, m.keys.Cancel):
		if !m.pane.cancelRunning() {
			if m.pane.input.Value() != "" {
				m.pane.input.SetValue("")
			} else {
				m.note(themes.SlotDim, "nothing runs: esc leaves the pane, then q quits")
			}
		}
		return nil
	}
	return m.pane.key(msg, m.pkeys)
}

func (m *Model) paste(text string) tea.Cmd {
	switch {
	case m.paneFocus && m.pane != nil:
		return m.pane.paste(text)
	case m.mode == modeCommand || m.mode == modeFilter:
		m.line.SetValue(m.line.Value() + strings.ReplaceAll(text, "\n", " "))
		m.line.CursorEnd()
		if m.mode == modeFilter {
			m.cur.table.SetFilter(strings.Fields(m.line.Value()))
		}
	}
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.quitting = true
	if m.pane != nil {
		m.pane.cancelRunning()
	}
	return tea.Quit
}

func (m *Model) startLine(md mode, prompt, value string) {
	m.mode = md
	m.line.Prompt = prompt
	m.line.SetValue(value)
	m.line.CursorEnd()
	m.line.Focus()
}

// lineKey edits the ':' or '/' line; the filter applies as it is typed.
func (m *Model) lineKey(msg tea.KeyPressMsg) tea.Cmd {
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
		if md == modeCommand {
			return m.jump(val)
		}
		m.cur.table.SetFilter(strings.Fields(val))
		if p := m.cur.table.FilterProblem(); p != "" {
			m.note(themes.SlotWarn, p)
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

// completeView completes a view name after ':'.
func (m *Model) completeView() {
	val := strings.ToLower(strings.TrimSpace(m.line.Value()))
	for _, n := range m.viewNames() {
		if strings.HasPrefix(n, val) {
			m.line.SetValue(n)
			m.line.CursorEnd()
			return
		}
	}
}

// jump goes to a view by name: `:qp`, `:dev`; `:q` quits as in k9s.
func (m *Model) jump(name string) tea.Cmd {
	if name == "" {
		return nil
	}
	if name == "q" || name == "quit" {
		return m.quit()
	}
	v := m.find(name)
	if v == nil {
		m.note(themes.SlotWarn, "no view "+quote(name)+": views are "+strings.Join(m.viewNames(), " "))
		return nil
	}
	m.cur, m.mode = v, modeNormal
	m.apply(v)
	m.note("", "")
	switch {
	case v.group == "doctor" && m.doctor == nil && !m.doctorBusy:
		return m.runDoctor()
	case v.group == "fleet":
		return tea.Batch(m.fetchFleet(), m.fleetTick())
	}
	return nil
}

func (m *Model) setPaused(p bool) tea.Cmd {
	m.paused = p
	c := m.src.Control
	if c == nil {
		return nil
	}
	return func() tea.Msg { c.SetPaused(p); return nil }
}

func (m *Model) step(dir int) tea.Cmd {
	i := 0
	for j, d := range intervals {
		if d <= m.interval {
			i = j
		}
	}
	i = min(max(0, i+dir), len(intervals)-1)
	m.interval = intervals[i]
	m.note(themes.SlotDim, "refresh every "+m.interval.String())
	c, d := m.src.Control, m.interval
	if c == nil {
		return nil
	}
	return func() tea.Msg { c.SetInterval(d); return nil }
}

// runDoctor runs the checklist in a Cmd.
func (m *Model) runDoctor() tea.Cmd {
	if m.src.Doctor == nil {
		m.doctorErr = errNoDoctor
		m.fillDoctor()
		return nil
	}
	if m.doctorBusy {
		return nil
	}
	m.doctorBusy = true
	m.fillDoctor()
	run := m.src.Doctor
	return func() tea.Msg {
		checks, err := run(contextBackground())
		return doctorMsg{checks, err}
	}
}

// wheel scrolls what is under the pointer.
func (m *Model) wheel(ms tea.Mouse) {
	delta := 3
	if ms.Button == tea.MouseWheelUp {
		delta = -3
	}
	if m.pane != nil && ms.Y >= m.h-1-m.paneHeight() {
		if delta < 0 {
			m.pane.scroll = min(m.pane.scroll+3, max(0, len(m.pane.lines)-1))
		} else {
			m.pane.scroll = max(0, m.pane.scroll-3)
		}
		return
	}
	if m.mode == modeDetail {
		m.detail.scroll = max(0, m.detail.scroll+delta)
		return
	}
	m.cur.table.Move(delta)
}

// click selects the row, the view tab or the pane under the pointer.
func (m *Model) click(ms tea.Mouse) tea.Cmd {
	if ms.Button != tea.MouseLeft {
		return nil
	}
	hh := strings.Count(m.header(), "\n") + 1
	if m.pane != nil && ms.Y >= m.h-1-m.paneHeight() && ms.Y < m.h-1 {
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
		m.cur.table.ClickRow(ms.Y - hh)
	}
	return nil
}
