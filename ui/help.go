package ui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/themes"
)

// helpGap is the room between two key groups side by side.
const helpGap = 4

// helpScreen is the `?` screen in w×h, generated from the key map: the
// groups side by side in as many rows as the width needs, then the
// notes wrapped at the width. What does not fit in h scrolls.
func (m *model) helpScreen(h int) string {
	th := m.c.theme
	body := m.helpLines(m.w)
	room := max(1, h-2)
	top := min(max(0, m.helpTop), max(0, len(body)-room))
	hint := "  (any key closes)"
	if len(body) > room {
		hint = "  (↑/↓ PgUp/PgDn scroll, any other key closes)"
	}
	lines := []string{th.Render(themes.SlotTitle, "keys") + th.Render(themes.SlotDim, hint), ""}
	lines = append(lines, body[top:min(len(body), top+room)]...)
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i := range lines[:h] {
		lines[i] = pad(ansi.Truncate(lines[i], m.w, "…"), m.w)
	}
	return strings.Join(lines[:h], "\n")
}

// helpLines is the whole help at width w.
func (m *model) helpLines(w int) []string {
	th := m.c.theme
	groups := m.helpGroups()
	var out, row []string
	rowW := 0
	for _, g := range groups {
		block, bw := helpBlock(th, g)
		x := 0
		if rowW > 0 {
			x = rowW + helpGap
		}
		if x > 0 && x+bw > w {
			out = append(append(out, row...), "")
			row, x = nil, 0
		}
		row = besides(row, x, block)
		rowW = x + bw
	}
	out = append(append(out, row...), "")
	notes := []struct{ label, text string }{
		{"views", ":" + strings.Join(ViewNames(), " :")},
		{"filter", "iproute2's words on object views (state=ERR pid=4242 type=RC lqpn=0-6) and plain words anywhere"},
		{"marks", "+ new, ~ changed, - gone, ! error, ? needs a look, ◆ this dashboard's shell"},
		{"mouse", "the wheel scrolls, a click selects a row, a view or the shell pane"},
	}
	if m.pane != nil {
		notes = append(notes, struct{ label, text string }{"shell", "tab focuses the pane; there every key goes to the shell until esc"})
	}
	const labelW = 8
	for _, n := range notes {
		for i, l := range wrap(n.text, max(10, w-labelW)) {
			label := ""
			if i == 0 {
				label = th.Render(themes.SlotHeader, n.label)
			}
			out = append(out, pad(label, labelW)+l)
		}
	}
	return out
}

// helpGroups are the key groups `?` shows: the key map's, the views'
// own keys beside the refresh keys, and the shell pane's.
func (m *model) helpGroups() [][]key.Binding {
	groups := m.keys.FullHelp()
	groups[2] = append(groups[2], m.viewKeys()...)
	if m.pane != nil {
		groups = append(groups, m.pane.keys.bindings())
		if m.pane.lesson != nil {
			groups = append(groups, m.lkeys.bindings())
		}
	}
	return groups
}

// helpBlock is one group of keys as lines, the keys in a column, and
// its width.
func helpBlock(th *themes.Theme, g []key.Binding) ([]string, int) {
	kw, dw := 0, 0
	for _, b := range g {
		if b.Enabled() {
			kw = max(kw, ansi.StringWidth(b.Help().Key))
			dw = max(dw, ansi.StringWidth(b.Help().Desc))
		}
	}
	var lines []string
	for _, b := range g {
		if b.Enabled() {
			lines = append(lines, th.Render(themes.SlotKey, pad(b.Help().Key, kw))+" "+th.Render(themes.SlotDim, b.Help().Desc))
		}
	}
	return lines, kw + 1 + dw
}

// besides puts block into row at column x.
func besides(row []string, x int, block []string) []string {
	for len(row) < len(block) {
		row = append(row, "")
	}
	for i, l := range block {
		row[i] = pad(row[i], x) + l
	}
	return row
}

// clampHelp keeps the help's first line shown within what it needs.
func (m *model) clampHelp() {
	room := max(1, m.lay.mainH-2)
	m.helpTop = min(max(0, m.helpTop), max(0, len(m.helpLines(m.w))-room))
}

// helpKey scrolls the help with the movement keys; any other key closes
// it.
func (m *model) helpKey(msg tea.KeyPressMsg) {
	k := m.keys
	m.clampHelp() // the width may have changed since
	defer m.clampHelp()
	switch {
	case key.Matches(msg, k.Up):
		m.helpTop--
	case key.Matches(msg, k.Down):
		m.helpTop++
	case key.Matches(msg, k.PageUp):
		m.helpTop -= max(1, m.h/2)
	case key.Matches(msg, k.PageDown):
		m.helpTop += max(1, m.h/2)
	case key.Matches(msg, k.Top):
		m.helpTop = 0
	case key.Matches(msg, k.Bottom):
		m.helpTop = 1 << 20 // clampHelp brings it back to the last page
	default:
		m.mode, m.helpTop = m.prev, 0
	}
}
