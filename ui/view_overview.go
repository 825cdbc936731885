package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// overviewSpec is the first view: several boxes on one screen in the
// manner of btop, each a summary of a full view that its digit or a
// click opens: the ports and what they move, the QPs by state and by
// process, the IRQs and their CPUs, the alerts and the newest events.
var overviewSpec = viewSpec{name: "overview", title: "overview", aliases: []string{"home", "top"},
	about: "the ports, QPs, IRQs and events at a glance (1-4 open each in full)",
	make:  func(c *common) component { return &overviewView{c: c} }}

type overviewView struct {
	c      *common
	states *qpStates // the last QPs' counts (countStates)
}

// drawn is a view that draws its own body instead of a table: body is
// its screen at w×h from the latest data (alerts are the header's);
// openAt names the view the point x,y of that body opens ("" none).
type drawn interface {
	body(w, h int, alerts []string) string
	openAt(x, y, w, h int) string
}

// openViewMsg asks the root to show a view, as ':' NAME does.
type openViewMsg struct{ name string }

// overviewBoxes are the boxes: their key, title and the view they open,
// in the order of the keys. prio says which stay when the screen is
// small (1 stays longest).
var overviewBoxes = []struct {
	key, title, view string
	prio             int
}{
	{"1", "ports", "port", 2},
	{"2", "QPs", "qp", 1},
	{"3", "IRQs", "irq", 4},
	{"4", "events", "events", 3},
}

// overviewKeys is one binding for the boxes' digits, so `?` lists them
// in one line.
var overviewKeys = func() []key.Binding {
	var keys []string
	for _, b := range overviewBoxes {
		keys = append(keys, b.key)
	}
	return []key.Binding{key.NewBinding(key.WithKeys(keys...),
		key.WithHelp(keys[0]+"-"+keys[len(keys)-1], "open an overview box's full view"))}
}()

func (v *overviewView) columns() []column   { return nil }
func (v *overviewView) filter() matcher     { return nil }
func (v *overviewView) heading() string     { return "" }
func (v *overviewView) keys() []key.Binding { return overviewKeys }
func (v *overviewView) empty() string       { return "" }
func (v *overviewView) detail(tableRow) []string {
	return nil
}

func (v *overviewView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return rowSet{}, false, nil
	}
	for _, b := range overviewBoxes {
		if k.String() == b.key {
			name := b.view
			return rowSet{}, false, func() tea.Msg { return openViewMsg{name} }
		}
	}
	return rowSet{}, false, nil
}

func (v *overviewView) body(w, h int, alerts []string) string {
	return renderBoxes(v.c.theme, v.boxes(w, h, alerts), w, h)
}

func (v *overviewView) openAt(x, y, w, h int) string {
	for _, r := range placeBoxes(v.boxes(w, h, nil), w, h) {
		if x >= r.x && x < r.x+r.w && y >= r.y && y < r.y+r.h {
			return r.box.view
		}
	}
	return ""
}

// boxes fills each box with its lines for a body w×h.
func (v *overviewView) boxes(w, h int, alerts []string) []box {
	inner := w - 2
	if w >= twoColumns {
		inner = w/2 - 2
	}
	lines := [][]string{v.portLines(inner), v.qpLines(inner), v.irqLines(inner), nil}
	var more int
	lines[3], more = v.eventLines(alerts, h)
	out := make([]box, len(overviewBoxes))
	for i, b := range overviewBoxes {
		out[i] = box{key: b.key, title: b.title, view: b.view, prio: b.prio, lines: lines[i]}
	}
	out[3].more = more
	return out
}
