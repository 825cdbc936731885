package ui

import (
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// detailState is the object opened with enter: which view and key, and
// how far it is scrolled. Its lines are rebuilt at every render from the
// latest data, so the detail stays live.
type detailState struct {
	view   *viewState
	key    string
	row    Row
	scroll int
}

func (m *Model) openDetail() {
	r, ok := m.cur.table.Selected()
	if !ok {
		return
	}
	m.detail = detailState{view: m.cur, key: r.Key, row: r}
	m.mode = modeDetail
}

func (m *Model) detailKey(msg tea.KeyPressMsg) {
	switch {
	case matches(msg, m.keys.Up):
		m.detail.scroll = max(0, m.detail.scroll-1)
	case matches(msg, m.keys.Down):
		m.detail.scroll++
	case matches(msg, m.keys.PageUp):
		m.detail.scroll = max(0, m.detail.scroll-10)
	case matches(msg, m.keys.PageDown):
		m.detail.scroll += 10
	case matches(msg, m.keys.Top):
		m.detail.scroll = 0
	}
}

// renderDetail draws the opened object in w×h.
func (m *Model) renderDetail(w, h int) string {
	th := m.theme
	lines := m.detailLines()
	title := th.Render(themes.SlotTitle, lines[0]) + th.Render(themes.SlotDim, "  (esc back, ↑↓ scroll)")
	body := lines[1:]
	m.detail.scroll = min(m.detail.scroll, max(0, len(body)-(h-1)))
	body = body[m.detail.scroll:]
	out := []string{pad(ansi.Truncate(title, w, "…"), w)}
	for i := 0; i < h-1; i++ {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		out = append(out, pad(ansi.Truncate(l, w, "…"), w))
	}
	return strings.Join(out, "\n")
}

func (m *Model) detailLines() []string {
	d := &m.detail
	// the latest version of the row, if it is still there
	row := d.row
	for _, r := range d.view.table.rows {
		if r.Key == d.key {
			row = r
			break
		}
	}
	th := m.theme
	lines := []string{d.view.title + ": " + d.key}
	if row.Mark == MarkVanishing {
		lines = append(lines, th.Render(themes.SlotVanished, "gone: this object no longer exists (last values shown)"))
	}
	if d.view.kind == rdma.KindQP && m.res != nil {
		return append(lines, m.qpDetail(row)...)
	}
	for i, c := range d.view.table.cols {
		if i < len(row.Cells) && c.Title != "" {
			lines = append(lines, th.Render(themes.SlotHeader, padTo(c.Title, 16))+row.Cells[i])
		}
	}
	switch d.view.group {
	case "res":
		lines = append(lines, m.ownerLines(row)...)
	case "sys":
		lines = append(lines, m.sysDetail(d.view.name, row)...)
	case "doctor":
		lines = append(lines, m.doctorDetail(row.Key)...)
	}
	return lines
}

// qpDetail is a QP's story: state history, PSNs and whether they move,
// retries, its process and PD, and — for the shell pane's QPs — its
// CQs, MRs and the legal next steps.
func (m *Model) qpDetail(row Row) []string {
	th := m.theme
	ref := row.res
	if ref == nil {
		ref = &resObj{}
	}
	var out []string
	field := func(name, val string) { out = append(out, th.Render(themes.SlotHeader, padTo(name, 12))+val) }
	q := ref.qp
	if q != nil {
		state := q.State.String()
		slot := themes.SlotOK
		if q.State.Failed() {
			slot = themes.SlotError
		}
		field("state", th.Render(slot, state)+"  type "+q.Type.String()+"  link "+q.DevName+"/"+itoa(int(q.Port)))
		if q.Attrs.Has(inspect.AttrResRQPN) {
			field("remote QP", itoa(int(q.RQPN)))
		}
		field("PSNs", "sq-psn "+itoa(int(q.SQPSN))+"  rq-psn "+itoa(int(q.RQPSN))+"  "+m.psnsMoving(ref.key))
		out = append(out, m.ownerLines(row)...)
		if q.Attrs.Has(inspect.AttrResPDN) {
			field("PD", "pdn "+itoa(int(q.PDN))+m.pdInfo(q.DevName, q.PDN))
		}
	}
	if q != nil {
		if r := m.retryCounters(q.DevName, q.Port); r != "" {
			field("retries", r+th.Render(themes.SlotDim, "  (the port's, shared by its QPs)"))
		}
	}
	for _, a := range m.res.frame.Update.Stuck {
		if a.Key == ref.key {
			out = append(out, th.Render(themes.SlotWarn, "stuck: "+a.Evidence))
		}
	}
	out = append(out, "", th.Render(themes.SlotHeader, "state history (as the watch saw it; steps between two polls can be missed)"))
	hist := m.res.frame.History[ref.key]
	if len(hist) == 0 {
		out = append(out, th.Render(themes.SlotDim, "  none yet"))
	}
	for _, e := range hist {
		st := e.State.String()
		if e.Gone {
			st = "gone (was " + st + ")"
		}
		out = append(out, "  "+e.Time.Format("15:04:05.000")+"  "+padTo(st, 18)+th.Render(themes.SlotDim, "sq-psn "+itoa(int(e.SQPSN))+" rq-psn "+itoa(int(e.RQPSN))))
		if e.Modify != nil {
			out = append(out, modifyLines(th, e.Modify)...)
		}
	}
	if o := m.oursObject(row); o != nil {
		out = append(out, m.sessionLines(o)...)
	}
	return out
}

// psnsMoving says whether the PSNs changed over the QP's history.
func (m *Model) psnsMoving(k inspect.Key) string {
	for _, a := range m.res.frame.Update.Stuck {
		if a.Key == k {
			return m.theme.Render(themes.SlotWarn, "still for "+plural(a.Polls, "poll"))
		}
	}
	h := m.res.frame.History[k]
	if len(h) >= 2 && (h[len(h)-1].SQPSN != h[0].SQPSN || h[len(h)-1].RQPSN != h[0].RQPSN) {
		return m.theme.Render(themes.SlotOK, "moved since first seen")
	}
	return m.theme.Render(themes.SlotDim, "(the watch flags a QP whose PSNs stop with sends its peer never accepted)")
}

// retryCounters lists the port's retry and error counters the Tracker
// watches (inspect.DefaultRetryCounters) that the device has.
func (m *Model) retryCounters(dev string, port uint32) string {
	if m.res.frame.Snapshot == nil {
		return ""
	}
	var parts []string
	for _, pc := range m.res.frame.Snapshot.PortCounters {
		if pc.DevName != dev || pc.Port != port {
			continue
		}
		for _, name := range inspect.DefaultRetryCounters {
			for _, c := range pc.Counters {
				if c.Name == name {
					parts = append(parts, name+" "+strconv.FormatUint(c.Value, 10))
				}
			}
		}
	}
	return strings.Join(parts, "  ")
}

func (m *Model) pdInfo(dev string, pdn uint32) string {
	if m.res.frame.Snapshot == nil {
		return ""
	}
	for _, p := range m.res.frame.Snapshot.PDs {
		if p.DevName == dev && p.PDN == pdn {
			return "  users " + strconv.FormatUint(p.Users, 10) + "  ctxn " + itoa(int(p.CtxN))
		}
	}
	return ""
}

// ownerLines name the process: the kernel records the creating thread's
// id as pid; its thread group is the process.
func (m *Model) ownerLines(row Row) []string {
	if row.res == nil || row.res.obj == nil {
		return nil
	}
	o := row.res.obj
	th := m.theme
	if !o.HasPID() {
		name := o.KernName
		if name == "" {
			name = o.Comm
		}
		return []string{th.Render(themes.SlotHeader, padTo("owner", 12)) + "the kernel (" + view.Printable(name) + ")"}
	}
	s := view.Printable(o.Comm) + " pid " + itoa(int(o.PID))
	if o.TGID != 0 && o.TGID != o.PID {
		s += " (a thread of process " + itoa(int(o.TGID)) + ")"
	}
	if row.Ours {
		s += th.Render(themes.SlotOurs, "  ◆ this dashboard's shell session")
	}
	return []string{th.Render(themes.SlotHeader, padTo("process", 12)) + s}
}

// oursObject finds the shell session's object behind a row.
func (m *Model) oursObject(row Row) *front.Object {
	if m.pane == nil || row.OursName == "" {
		return nil
	}
	if o, ok := m.pane.state.Object(row.OursName); ok {
		return &o
	}
	return nil
}

// sessionLines show a shell QP's session side: its CQs and MRs, and the
// state diagram with the legal next steps.
func (m *Model) sessionLines(o *front.Object) []string {
	th := m.theme
	out := []string{"", th.Render(themes.SlotOurs, "in this dashboard's shell: "+o.Name)}
	out = append(out, "  send CQ "+dash(o.SendCQ)+"  recv CQ "+dash(o.RecvCQ)+"  PD "+dash(o.Parent))
	for x := range m.pane.state.Objects() {
		if x.Kind == "mr" && x.Parent == o.Parent {
			out = append(out, "  MR "+x.Name+": "+strconv.FormatUint(x.Length, 10)+" bytes, lkey 0x"+strconv.FormatUint(uint64(x.LKey), 16)+", "+x.Access)
		}
	}
	out = append(out, "", th.Render(themes.SlotHeader, "state machine"), "  "+m.diagram(o.State))
	next := o.NextSteps()
	for _, s := range next {
		if s.Legal {
			needs := ""
			if len(s.Needs) > 0 {
				needs = th.Render(themes.SlotDim, "  needs "+strings.Join(s.Needs, ", "))
			}
			out = append(out, th.Render(themes.SlotOK, "  → "+s.To)+needs+th.Render(themes.SlotDim, "   (shell: modify "+o.Name+" "+strings.ToLower(s.To)+")"))
		}
	}
	var refused []string
	for _, s := range next {
		if !s.Legal {
			refused = append(refused, s.To)
		}
	}
	if len(refused) > 0 {
		out = append(out, th.Render(themes.SlotDim, "  refused from here: "+strings.Join(refused, " ")))
	}
	if len(o.History) > 0 {
		out = append(out, "", th.Render(themes.SlotHeader, "modifies in the shell"))
		for _, t := range o.History {
			out = append(out, "  "+t.At.Format("15:04:05.000")+"  "+t.From+" → "+t.To)
		}
	}
	return out
}

// diagram draws the QP state machine's main line with the current state
// marked.
func (m *Model) diagram(cur string) string {
	th := m.theme
	arrow := " → "
	if th.ASCII {
		arrow = " -> "
	}
	var parts []string
	for _, s := range []string{"RESET", "INIT", "RTR", "RTS", "SQD"} {
		if s == cur {
			parts = append(parts, th.Render(themes.SlotSelected, "["+s+"]"))
		} else {
			parts = append(parts, s)
		}
	}
	tail := "   any" + arrow + "ERR" + arrow + "RESET"
	if cur == "ERR" || cur == "SQE" {
		tail = "   " + th.Render(themes.SlotError, "["+cur+"]") + arrow + "RESET"
	}
	return strings.Join(parts, arrow) + tail
}

func (m *Model) sysDetail(view string, row Row) []string {
	if m.sys == nil || view != "irq" {
		return nil
	}
	th := m.theme
	var out []string
	for _, r := range m.sys.u.IRQRates {
		if r.Device+"/"+itoa(r.IRQ) != row.Key || m.sys.u.IRQs == nil {
			continue
		}
		out = append(out, "", th.Render(themes.SlotHeader, "interrupts per second on each CPU"))
		cpus := m.sys.u.IRQs.CPUs
		var line strings.Builder
		for i, v := range r.PerCPU {
			cpu := i
			if i < len(cpus) {
				cpu = cpus[i]
			}
			line.WriteString(padTo("cpu"+itoa(cpu), 7) + padTo(strconv.FormatFloat(v, 'f', 0, 64), 9))
			if i%6 == 5 {
				out = append(out, "  "+line.String())
				line.Reset()
			}
		}
		if line.Len() > 0 {
			out = append(out, "  "+line.String())
		}
	}
	return out
}

func padTo(s string, w int) string { return align(s, w, false) + " " }

func itoa(n int) string { return strconv.Itoa(n) }
