package themes

import (
	"image/color"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
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

// slots lists every slot.
var slots = []Slot{SlotTitle, SlotHeader, SlotBorder, SlotSelected, SlotKey, SlotOK, SlotWarn,
	SlotError, SlotDim, SlotNew, SlotChanged, SlotVanished, SlotOurs, SlotAccent}

// Theme is a complete set of styles, one per slot.
type Theme struct {
	Name   string
	styles map[Slot]lipgloss.Style
	// affixes are each slot's style as the escapes lipgloss writes
	// before and after one line of text (see Render).
	affixes map[Slot]affix
	// ASCII draws borders and marks with ASCII only (for terminals or
	// fonts without box drawing).
	ASCII bool
}

// Style returns the slot's style (a plain style for an unknown slot).
func (t *Theme) Style(s Slot) lipgloss.Style { return t.styles[s] }

// Render renders text in the slot's style. A slot's style is only
// colours and attributes, so for one line of plain text lipgloss's
// output is the same escapes around the text every time: Render joins
// the escapes it recorded when the theme was built instead of running
// lipgloss's layout per call (the dashboard calls it hundreds of times a
// frame). Text with control characters (tabs, newlines) goes through
// lipgloss.
func (t *Theme) Render(s Slot, text string) string {
	a, ok := t.affixes[s]
	if !ok || text == "" || hasControl(text) {
		return t.styles[s].Render(text)
	}
	return a.before + text + a.after
}

// affix is what a style writes around one line of text.
type affix struct{ before, after string }

// sentinel stands for the text while a style's affixes are recorded.
const sentinel = "\uE000"

// affixOf records the escapes st writes around one line of text; ok is
// false when the style changes the text itself (padding, width) or
// styles it rune by rune (lipgloss underlines and strikes through each
// rune but the spaces on their own).
func affixOf(st lipgloss.Style) (affix, bool) {
	if st.GetUnderline() || st.GetStrikethrough() {
		return affix{}, false
	}
	out := st.Render(sentinel)
	before, after, ok := strings.Cut(out, sentinel)
	if !ok || ansi.Strip(before+after) != "" {
		return affix{}, false
	}
	return affix{before, after}, true
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		}
	}
	return false
}

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
	t := &Theme{Name: name, styles: make(map[Slot]lipgloss.Style, len(slots)), affixes: make(map[Slot]affix, len(slots))}
	for _, s := range slots {
		st := specs[s].style(noColor)
		t.styles[s] = st
		if a, ok := affixOf(st); ok {
			t.affixes[s] = a
		}
	}
	return t
}
