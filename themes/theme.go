package themes

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Slot names one meaning a style carries.
type Slot string

// The slots, in the order a theme file documents them.
const (
	SlotTitle    Slot = "title"    // a view's title line
	SlotHeader   Slot = "header"   // the dashboard header and table column names
	SlotBorder   Slot = "border"   // pane borders and separators
	SlotSelected Slot = "selected" // the selected row
	SlotKey      Slot = "key"      // key names in help and hints
	SlotOK       Slot = "ok"       // healthy: ACTIVE ports, RTS QPs, passed checks
	SlotWarn     Slot = "warn"     // needs a look: warnings, stuck QPs
	SlotError    Slot = "error"    // broken: ERR QPs, failed checks, error counters
	SlotDim      Slot = "dim"      // secondary text: descriptions, units
	SlotNew      Slot = "new"      // rows that just appeared
	SlotChanged  Slot = "changed"  // rows whose values just changed
	SlotVanished Slot = "vanished" // rows kept a moment after they disappeared
	SlotOurs     Slot = "ours"     // objects of this dashboard's own shell session
	SlotAccent   Slot = "accent"   // the focused pane, the prompt
)

// Slots lists every slot.
var Slots = []Slot{SlotTitle, SlotHeader, SlotBorder, SlotSelected, SlotKey, SlotOK, SlotWarn,
	SlotError, SlotDim, SlotNew, SlotChanged, SlotVanished, SlotOurs, SlotAccent}

// Theme is a complete set of styles, one per slot.
type Theme struct {
	Name   string
	styles map[Slot]lipgloss.Style
	// ASCII draws borders and marks with ASCII only (for terminals or
	// fonts without box drawing).
	ASCII bool
}

// Style returns the slot's style (a plain style for an unknown slot).
func (t *Theme) Style(s Slot) lipgloss.Style { return t.styles[s] }

// Render renders text in the slot's style.
func (t *Theme) Render(s Slot, text string) string { return t.styles[s].Render(text) }

// spec is a slot's look, as built-in tables and theme files give it.
type spec struct {
	fg, bg                          color.Color
	bold, faint, reverse, underline bool
	set                             bool // the spec was given (a file may leave a slot to its base)
}

func (sp spec) style(noColor bool) lipgloss.Style {
	st := lipgloss.NewStyle().Bold(sp.bold).Faint(sp.faint).Reverse(sp.reverse).Underline(sp.underline)
	if noColor {
		return st
	}
	if sp.fg != nil {
		st = st.Foreground(sp.fg)
	}
	if sp.bg != nil {
		st = st.Background(sp.bg)
	}
	return st
}

func build(name string, specs map[Slot]spec, noColor bool) *Theme {
	t := &Theme{Name: name, styles: make(map[Slot]lipgloss.Style, len(Slots))}
	for _, s := range Slots {
		t.styles[s] = specs[s].style(noColor)
	}
	return t
}
