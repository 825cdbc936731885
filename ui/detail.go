package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/themes"
)

// detailState is the object opened with enter: which view and key, and
// how far it is scrolled. Its lines are rebuilt at every render from the
// latest data, so the detail stays live.
type detailState struct {
	page   *page
	key    string
	row    tableRow
	scroll int
}

func (m *model) openDetail() {
	r, ok := m.cur.table.Selected()
	if !ok {
		return
	}
	m.detail = detailState{page: m.cur, key: r.Key, row: r}
	m.mode = modeDetail
}

// detailKey scrolls the detail, within what its lines need now (they
// change with the data, so the bound is taken at each key, not at each
// message).
func (m *model) detailKey(msg tea.KeyPressMsg) {
	m.scrollDetail(0)
	switch {
	case key.Matches(msg, m.keys.Up):
		m.detail.scroll = max(0, m.detail.scroll-1)
	case key.Matches(msg, m.keys.Down):
		m.detail.scroll++
	case key.Matches(msg, m.keys.PageUp):
		m.detail.scroll = max(0, m.detail.scroll-10)
	case key.Matches(msg, m.keys.PageDown):
		m.detail.scroll += 10
	case key.Matches(msg, m.keys.Top):
		m.detail.scroll = 0
	}
	m.scrollDetail(0)
}

// scrollDetail moves the detail by delta lines, kept between its first
// line and the last screenful.
func (m *model) scrollDetail(delta int) {
	body := len(m.detailLines(m.w)) - 1
	m.detail.scroll = min(max(0, m.detail.scroll+delta), max(0, body-(m.lay.mainH-1)))
}

// renderDetail draws the opened object in w×h.
func (m *model) renderDetail(w, h int) string {
	th := m.c.theme
	lines := m.detailLines(w)
	title := th.Render(themes.SlotTitle, lines[0]) + th.Render(themes.SlotDim, "  (esc back, ↑↓ scroll)")
	body := lines[1:]
	body = body[min(m.detail.scroll, max(0, len(body)-(h-1))):]
	out := []string{pad(truncate(title, w, "…"), w)}
	for i := 0; i < h-1; i++ {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		out = append(out, pad(truncate(l, w, "…"), w))
	}
	return strings.Join(out, "\n")
}

// detailLines are the opened row's title and what its view says of it,
// from the latest data, each line wrapped at w (wrapDetail).
func (m *model) detailLines(w int) []string {
	d := &m.detail
	if d.page == nil {
		return []string{""}
	}
	// the latest version of the row, if it is still there
	row := d.row
	for _, r := range d.page.table.rows {
		if r.Key == d.key {
			row = r
			break
		}
	}
	lines := []string{d.page.title + ": " + d.key}
	if row.Mark == markVanishing {
		lines = append(lines, m.c.theme.Render(themes.SlotVanished, "gone: this object no longer exists (last values shown)"))
	}
	for _, l := range d.page.view.detail(row) {
		lines = append(lines, wrapDetail(l, w)...)
	}
	return lines
}

// detailIndent is where a detail line's value starts (padTo's 12 cells
// and a space): a wrapped labelled line goes on there, under the value.
const detailIndent = 13

// wrapDetail wraps a detail line at w cells, at spaces and commas where it
// can (a traced modify's attributes are one long line); the lines after
// the first are indented as the line is, or under the value of a
// labelled line.
func wrapDetail(l string, w int) []string {
	if width(l) <= w {
		return []string{l}
	}
	plain := ansi.Strip(l)
	indent := len(plain) - len(strings.TrimLeft(plain, " "))
	if indent == 0 {
		indent = detailIndent
	}
	if w < indent+20 {
		return []string{l} // too narrow to wrap usefully: cut at render
	}
	parts := strings.Split(ansi.Wrap(l, w, " ,"), "\n")
	out := parts[:1]
	rest := strings.Join(parts[1:], " ")
	for _, p := range strings.Split(ansi.Wrap(rest, w-indent, " ,"), "\n") {
		out = append(out, strings.Repeat(" ", indent)+strings.TrimLeft(p, " "))
	}
	return out
}

func padTo(s string, w int) string { return align(s, w, false) + " " }

func itoa(n int) string { return strconv.Itoa(n) }
