package ui

import (
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
)

// component is one view of the main area. The root model gives it a table
// (its columns and filter), routes messages to it and draws it; the
// view itself only knows its data.
type component interface {
	// columns are its table's columns; filter compiles its filter words
	// (nil: column=value words and substrings).
	columns() []column
	filter() matcher
	// take is given every message the root does not keep for itself:
	// new data (resMsg, sysMsg), the view's own messages, shownMsg when
	// it becomes the view shown, and a key press matching one of its
	// keys. ok says rows are its new rows.
	take(msg tea.Msg) (rows rowSet, ok bool, cmd tea.Cmd)
	// heading is its table's title now.
	heading() string
	// detail is what enter shows of a row, below its title.
	detail(r tableRow) []string
	// empty says why it has no rows, when it knows.
	empty() string
	// keys are its own keys, for the footer and `?`.
	keys() []key.Binding
}

// shownMsg tells a view it became the one shown.
type shownMsg struct{}

// viewSpec is a view's line in the registry, or with run a command's.
type viewSpec struct {
	name    string
	aliases []string
	// title names the view in its detail ("QPs: rxe0/qp/17").
	title string
	// about says what it shows, for the help (ui.Views).
	about string
	// tail: the table follows its newest row unless the user moved up.
	tail bool
	// cols are a table view's columns, where the view is one of a family
	// (an object kind's, a sysfs reading's) whose rows a shared builder
	// makes; kind is the object kind, sysfs says a sysfs view.
	cols  []column
	kind  inspect.Kind
	sysfs bool
	make  func(c *common) component
	// run is a command's work (`:learn`, `:q`): it has no page and no
	// tab; nil for a view.
	run func(m *model) tea.Cmd
}

// common is what the root model shares with every view: the sources,
// the theme, the latest readings and the status line.
type common struct {
	src   Sources
	theme *themes.Theme
	res   *resData
	sys   *sysData
	// shell is the pane's shell session (nil without a pane).
	shell *front.State
	// shown is the view on screen; selected is its table's selected row
	// (hasSelected: there is one), set before a key of the view's own
	// is routed to it, for keys that act on the selection.
	shown       component
	selected    tableRow
	hasSelected bool
	status      string
	statusSlot  themes.Slot
	now         func() time.Time
	// verdicts are the diagnosis's latest (Sources.Verdicts).
	verdicts Verdicts
}

func (c *common) note(slot themes.Slot, text string) {
	c.status, c.statusSlot = text, slot
}

// skipDev tells a device the dashboard was not asked to show.
func (c *common) skipDev(dev string) bool { return c.src.Dev != "" && dev != c.src.Dev }
