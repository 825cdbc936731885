package ui

import (
	"strings"

	"github.com/verbscope/verbscope/themes"
)

// mainArea draws the current view, its detail or the help in the room
// the layout gives it.
func (m *model) mainArea() string {
	h := m.lay.mainH
	switch {
	case h <= 0:
		return ""
	case m.mode == modeHelp:
		return m.helpScreen(h)
	case m.mode == modeDetail:
		return m.renderDetail(m.w, h)
	}
	if d, ok := m.cur.view.(drawn); ok {
		return d.body(m.w, h, m.alerts())
	}
	t := m.cur.table
	out := t.Render(m.c.theme)
	if note := m.cur.view.empty(); note != "" && len(t.rows) == 0 {
		lines := strings.Split(out, "\n")
		if len(lines) > 2 {
			lines[2] = pad(m.c.theme.Render(themes.SlotDim, truncate("  "+note, m.w, "…")), m.w)
		}
		out = strings.Join(lines, "\n")
	}
	return out
}

func nanRow(n int) []float64 {
	r := make([]float64, n)
	for i := range r {
		r[i] = nan
	}
	return r
}

// wrap breaks s into lines of at most w cells at spaces.
func wrap(s string, w int) []string {
	var out []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && width(line)+1+width(word) > w {
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
