package ui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// header is the lines above the main area: who and where, the ports,
// the QPs by state, the alerts, and the view tabs.
func (m *model) header() string {
	th := m.c.theme
	sep := th.Render(themes.SlotDim, " · ")
	h := m.c.src.Host
	first := th.Render(themes.SlotTitle, "verbscope")
	for _, part := range []string{h.Hostname, "kernel " + h.Kernel, "rdma-core " + h.RDMACore} {
		if strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(part, "kernel "), "rdma-core ")) != "" {
			first += sep + part
		}
	}
	var pos ReplayPosition
	if m.c.src.Replay != nil {
		pos = m.c.src.Replay.Position()
	}
	if m.c.src.Replay != nil && !pos.Live {
		first += sep + m.replayField(pos)
	} else {
		first += sep + m.readingField()
	}
	if m.paused {
		first += sep + th.Render(themes.SlotWarn, "PAUSED (p resumes)")
	}
	if m.c.src.Demo != "" {
		first += sep + th.Render(themes.SlotOurs, "demo: "+m.c.src.Demo)
	}
	if f := m.traceField(); f != "" {
		first += sep + f
	}
	if pos.Rewind && pos.Live {
		// Last: the words before it are what people and tests look for.
		first += sep + th.Render(themes.SlotDim, "[ rewinds")
	}
	lines := []string{first, m.portsLine(), m.alertsLine(), m.tabs()}
	for i, l := range lines {
		lines[i] = pad(truncate(l, m.w, "…"), m.w)
	}
	return strings.Join(lines, "\n")
}

// portsLine lists each device's ports with their state, then the QPs by
// state.
func (m *model) portsLine() string {
	th := m.c.theme
	var parts []string
	if m.c.sys != nil {
		for _, d := range m.c.sys.u.Devices {
			if m.c.skipDev(d.Name) {
				continue
			}
			s := d.Name
			for _, p := range d.Ports {
				slot := themes.SlotOK
				if !p.State.Up() {
					slot = themes.SlotError
				}
				s += " " + th.Render(slot, strconv.Itoa(p.Port)+":"+stateName(p.StateName))
			}
			parts = append(parts, s)
		}
		if len(m.c.sys.u.Devices) == 0 {
			parts = append(parts, th.Render(themes.SlotWarn, "no RDMA devices in /sys/class/infiniband"))
		}
	} else {
		parts = append(parts, th.Render(themes.SlotDim, "reading sysfs…"))
	}
	q := th.Render(themes.SlotDim, "QPs: reading…")
	if m.c.res != nil && m.c.res.frame.Snapshot != nil {
		q = "QPs " + strconv.Itoa(len(m.c.res.frame.Snapshot.QPs))
		var states []rdma.QPState
		for s := range m.c.res.qpStates {
			states = append(states, s)
		}
		slices.Sort(states) // rdma's order: RESET INIT RTR RTS SQD SQE ERR
		for _, s := range states {
			slot := themes.Slot("")
			switch {
			case s.Failed():
				slot = themes.SlotError
			case s == rdma.QPStateRTS:
				slot = themes.SlotOK
			}
			txt := s.String() + " " + strconv.Itoa(m.c.res.qpStates[s])
			if slot != "" {
				txt = th.Render(slot, txt)
			}
			q += " " + txt
		}
	}
	return strings.Join(parts, "  ") + th.Render(themes.SlotDim, "  │  ") + q
}

// alerts are what needs a look now, worst first.
func (m *model) alerts() []string {
	var out []string
	if m.resErr != nil {
		out = append(out, "netlink: "+firstLine(m.resErr.Error()))
	}
	if m.sysErr != nil {
		out = append(out, "sysfs: "+firstLine(m.sysErr.Error()))
	}
	for _, w := range []*lateWatch{&m.resLate, &m.sysLate} {
		if a := w.alert(); a != "" {
			out = append(out, a)
		}
	}
	if m.c.res != nil {
		u := m.c.res.frame.Update
		if n := len(u.Failed); n > 0 {
			a := u.Failed[0]
			s := plural(n, "QP") + " in ERR/SQE: " + a.Key.String()
			if a.Comm != "" {
				s += " (" + view.Printable(a.Comm) + ")"
			}
			if v := m.c.verdictOf(a.Key); v != nil {
				s += " " + string(v.Cause)
			}
			out = append(out, s)
		}
		// The diagnosis's verdict names the cause; the Tracker's own
		// stuck QPs (a peer on this host) stand in until it has one.
		if a := m.c.stuckAlert(); a != "" {
			out = append(out, a)
		} else if n := len(u.Stuck); n > 0 {
			out = append(out, plural(n, "stuck QP")+": "+u.Stuck[0].Key.String())
		}
		if n := deadCount(u); n > 0 {
			out = append(out, plural(n, "object")+" of dead processes")
		}
		if a := memlockAlert(m.c.res.owners); a != "" {
			out = append(out, a)
		}
		if g := u.Growing; len(g) > 0 {
			out = append(out, plural(len(g), "growing object kind")+": "+procName(uint32(g[0].TGID), g[0].Comm)+" "+
				string(g[0].Kind)+" +"+strconv.FormatFloat(g[0].PerMinute, 'f', 1, 64)+"/min")
		}
		for _, l := range u.Limits {
			if l.Over {
				out = append(out, view.Printable(l.Dev)+" "+string(l.Kind)+" at "+strconv.Itoa(int(l.Fraction*100))+"% of max")
			}
		}
	}
	if m.c.sys != nil {
		for _, d := range m.c.sys.u.Devices {
			if m.c.skipDev(d.Name) {
				continue
			}
			for _, p := range d.Ports {
				if !p.State.Up() {
					out = append(out, "port "+d.Name+"/"+strconv.Itoa(p.Port)+" "+stateName(p.StateName))
				}
			}
		}
	}
	return out
}

// memlockAlert names the processes pinning more than 80% (owners' alertRatio)
// of their RLIMIT_MEMLOCK, the nearest first: their next ibv_reg_mr is
// likely to fail with ENOMEM.
func memlockAlert(ps []owners.Process) string {
	worst, n := -1, 0
	for i := range ps {
		if ps[i].MemlockAlert() {
			n++
			if worst < 0 || ps[i].MemlockRatio() > ps[worst].MemlockRatio() {
				worst = i
			}
		}
	}
	if n == 0 {
		return ""
	}
	p := &ps[worst]
	who := "1 process"
	if n > 1 {
		who = strconv.Itoa(n) + " processes"
	}
	return who + " near memlock: " + procName(uint32(p.TGID), p.Comm) + " " +
		strconv.Itoa(int(p.MemlockRatio()*100+0.5)) + "% of " + view.Bytes(p.MemlockSoft.Value).Short()
}

func (m *model) alertsLine() string {
	a := m.alerts()
	if len(a) == 0 {
		return m.c.theme.Render(themes.SlotOK, "no alerts")
	}
	// "!" rather than a warning sign: terminals disagree on that one's
	// width (emoji or text), which shifts what is drawn after it.
	return m.c.theme.Render(themes.SlotError, "! "+strings.Join(a, " · "))
}

// tabs is the row of view names; the current one is highlighted. When
// the row is wider than the screen it shows the stretch around the
// current view, with ‹ and › where views are left out.
func (m *model) tabs() string {
	th := m.c.theme
	var b strings.Builder
	first, last := m.tabRange()
	if first > 0 {
		b.WriteString(th.Render(themes.SlotDim, "‹ "))
	}
	for i := first; i < last; i++ {
		p := m.pages[i]
		if i > first {
			b.WriteByte(' ')
		}
		slot := themes.SlotDim
		if p == m.cur {
			slot = themes.SlotSelected
		}
		b.WriteString(th.Render(slot, p.name))
	}
	if last < len(m.pages) {
		b.WriteString(th.Render(themes.SlotDim, " ›"))
	}
	return b.String()
}

// tabRange is the pages the tab row shows, [first, last): all of them
// when they fit in the screen's width, else the widest run around the
// current page that fits with its ‹ › marks.
func (m *model) tabRange() (first, last int) {
	width := func(a, b int) int {
		n := 0
		for i := a; i < b; i++ {
			n += len(m.pages[i].name) + 1
		}
		if a > 0 {
			n += 2 // "‹ "
		}
		if b < len(m.pages) {
			n += 2 // " ›"
		}
		return n - 1
	}
	if width(0, len(m.pages)) <= m.w {
		return 0, len(m.pages)
	}
	cur := slices.Index(m.pages, m.cur)
	first, last = cur, cur+1
	for grew := true; grew; {
		grew = false
		if last < len(m.pages) && width(first, last+1) <= m.w {
			last, grew = last+1, true
		}
		if first > 0 && width(first-1, last) <= m.w {
			first, grew = first-1, true
		}
	}
	return first, last
}

// tabAt is the view tab at column x.
func (m *model) tabAt(x int) *page {
	first, last := m.tabRange()
	pos := 0
	if first > 0 {
		pos = 2
	}
	for _, p := range m.pages[first:last] {
		if x >= pos && x < pos+len(p.name) {
			return p
		}
		pos += len(p.name) + 1
	}
	return nil
}

// footer is the ':' or '/' line while typing, else the status message
// or the key hints.
func (m *model) footer() string {
	th := m.c.theme
	if m.mode.typing() {
		return truncate(m.line.View()+th.Render(themes.SlotDim, m.lineHint()), m.w, "…")
	}
	if m.c.status != "" {
		slot := m.c.statusSlot
		if slot == "" {
			slot = themes.SlotDim
		}
		return pad(truncate(th.Render(slot, m.c.status), m.w, "…"), m.w)
	}
	return m.lay.hints
}

// lineHint is what the footer shows after the ':' or '/' line.
func (m *model) lineHint() string {
	switch m.mode {
	case modeCommand:
		return "  " + strings.Join(ViewNames(), " ")
	case modeTime:
		return "  start end -3m 09:24:05 2026-12-01T09:24:05 · enter jumps · esc cancels"
	}
	return "  enter keeps · esc clears"
}

// keyHints is the footer's key hints; relayout builds them once per
// theme, width and focus: the bindings never change while the dashboard
// runs, and the help model styles every key through lipgloss.
func (m *model) keyHints() string {
	th := m.c.theme
	hm := help.New()
	hm.Styles.ShortKey = th.Style(themes.SlotKey)
	hm.Styles.ShortDesc = th.Style(themes.SlotDim)
	hm.Styles.ShortSeparator = th.Style(themes.SlotDim)
	hm.SetWidth(m.w)
	if m.paneFocus && m.pane.replay {
		return hm.ShortHelpView([]key.Binding{m.pane.keys.scrollUp, m.pane.keys.scrollDown, m.keys.Back})
	}
	if m.paneFocus {
		return hm.ShortHelpView(append(m.pane.keys.bindings()[:5], m.keys.Back, m.keys.Cancel))
	}
	return hm.ShortHelpView(m.keys.ShortHelp())
}

func deadCount(u inspect.Update) int { return len(u.Dead) }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// stateName is a port state as sysfs names it, or a word for a state
// the driver left unreadable.
func stateName(s string) string {
	if s == "" || s == "-" {
		return "state unknown"
	}
	return s
}
