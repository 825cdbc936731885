package ui

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/themes"
)

// mainArea draws the current view, its detail or the help in w×h.
func (m *Model) mainArea(h int) string {
	switch {
	case h <= 0:
		return ""
	case m.mode == modeHelp:
		return m.helpScreen(h)
	case m.mode == modeDetail:
		return m.renderDetail(m.w, h)
	}
	t := m.cur.table
	out := t.Render(m.theme, m.w, h)
	if note := m.emptyNote(); note != "" && len(t.rows) == 0 {
		lines := strings.Split(out, "\n")
		if len(lines) > 2 {
			lines[2] = pad(m.theme.Render(themes.SlotDim, ansi.Truncate("  "+note, m.w, "…")), m.w)
		}
		out = strings.Join(lines, "\n")
	}
	return out
}

// emptyNote says why a view is empty, when we know.
func (m *Model) emptyNote() string {
	switch m.cur.group {
	case "sys":
		if m.sys == nil {
			return "reading sysfs…"
		}
		return m.sys.notes[m.cur.name]
	case "res":
		if m.res == nil {
			return "reading RDMA netlink…"
		}
	case "doctor":
		if m.doctorBusy {
			return "running the checklist…"
		}
		if m.doctorErr != nil {
			return m.doctorErr.Error()
		}
	case "fleet":
		switch {
		case m.src.Fleet == nil:
			return "no Prometheus to ask: start the dashboard with --prometheus URL (the server that scrapes verbscope export on every host)"
		case m.fleetErr != nil:
			return m.fleetErr.Error()
		case m.fleetBusy:
			return "asking Prometheus…"
		}
		return "Prometheus knows no host of this job"
	case "events":
		return "nothing happened yet: objects appearing, vanishing and changing state show here"
	}
	return ""
}

var doctorCols = []Column{col("id", "check", 0, false), col("verdict", "verdict", 0, false), {Key: "summary", Title: "summary", Prio: 0}}

var errNoDoctor = errors.New("doctor is not available in this dashboard")

// fillDoctor puts the checklist into the doctor view.
func (m *Model) fillDoctor() {
	var rows []Row
	for _, c := range m.doctor {
		mark := MarkNone
		switch c.Verdict {
		case "fail":
			mark = MarkError
		case "warn":
			mark = MarkWarn
		}
		rows = append(rows, Row{Key: c.ID, Cells: []string{c.ID, c.Verdict, c.Summary}, Mark: mark, Nums: nanRow(3)})
	}
	for _, v := range m.views {
		if v.group == "doctor" {
			v.table.SetRows(rows)
			v.table.Title = "doctor"
			if m.doctorBusy {
				v.table.Title = "doctor (running…)"
			} else if !m.doctorAt.IsZero() {
				v.table.Title = "doctor at " + m.doctorAt.Format("15:04:05") + " (r re-runs)"
			}
		}
	}
}

func (m *Model) doctorDetail(id string) []string {
	th := m.theme
	for _, c := range m.doctor {
		if c.ID != id {
			continue
		}
		out := []string{"", th.Render(themes.SlotHeader, c.Title)}
		if len(c.Evidence) > 0 {
			out = append(out, "", th.Render(themes.SlotHeader, "evidence"))
			for _, e := range c.Evidence {
				out = append(out, "  "+e)
			}
		}
		if len(c.Fix) > 0 {
			out = append(out, "", th.Render(themes.SlotHeader, "fix"))
			for _, f := range c.Fix {
				out = append(out, "  "+f)
			}
		}
		return out
	}
	return nil
}

func nanRow(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = nan
	}
	return r
}

func matches(msg tea.KeyPressMsg, b key.Binding) bool { return key.Matches(msg, b) }

func contextBackground() context.Context { return context.Background() }

func quote(s string) string { return strconv.Quote(s) }

// wrap breaks s into lines of at most w cells at spaces.
func wrap(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && ansi.StringWidth(line)+1+ansi.StringWidth(word) > w {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(out, line)
}
