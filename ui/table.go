package ui

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// column is one column of a table view.
type column struct {
	Key   string // the row field it shows
	Title string
	// Prio orders which columns stay when the terminal is narrow: 0
	// always stays, higher numbers go first.
	Prio  int
	Right bool // right-aligned (numbers)
	Max   int  // widest it may grow (0: no limit)
	// Cut: free text, cut at the edge rather than dropped when it is
	// the rightmost column and a fair part of it fits.
	Cut bool
}

// rowMark is what happened to a row lately; it shows as a symbol in the
// first column as well as in colour, so it reads without colour too.
type rowMark uint8

// Row marks, in rising precedence.
const (
	markNone      rowMark = iota
	markChanged           // a value changed lately
	markNew               // appeared lately
	markWarn              // needs a look (stuck, port down)
	markVanishing         // gone; kept dimmed a few seconds
	markError             // in error (QP in ERR/SQE, failed check)
)

var markSymbols = [...]string{" ", "~", "+", "?", "-", "!"}

// tableRow is one row of a table: its identity, cells in column order, and
// what the filter and the sort look at.
type tableRow struct {
	Key   string
	Cells []string
	// Nums are the cells as numbers for sorting (NaN: not a number).
	Nums []float64
	Mark rowMark
	// Ours marks an object of this dashboard's shell session, OursName
	// its name there (qp1).
	Ours     bool
	OursName string
	// Fields are the row's iproute2 fields, for iproute2's filters, in
	// the sysfs views; nil elsewhere.
	Fields view.Row
	// res is, in the views of `rdma resource show`, the object the row
	// stands for (see resObj): its fields are built when a filter asks.
	res *resObj
}

// rowSet is a view's rows with their generation: a builder that hands
// the same rows again (resBuilder, for an idle host's reading) hands
// the same generation, and the table keeps its widths, filter and
// order without a look at them. A table takes its rows from one
// builder, which numbers its generations (resBuilder.newGen); the rows
// are never written once handed; generation 0 is rows made for one
// handing only, always taken.
type rowSet struct {
	rows []tableRow
	gen  uint64
}

// matcher compiles filter words into a row predicate; the string is a
// problem with the words, for the status line.
type matcher func(cols []column, words []string) (func(*tableRow) bool, string)

// table is a sortable, filterable list whose selection follows the
// row's key across refreshes.
type table struct {
	Title string
	// tail: the table follows its newest row (model.apply) while the
	// cursor is on the last one, as less +F does; its title says which.
	tail bool
	cols []column
	rows []tableRow
	// gen is rows' generation (rowSet).
	gen uint64
	// view holds indexes into rows: the filtered, sorted rows shown.
	view    []int
	widths  []int
	sortCol int // -1: the order the data came in
	desc    bool
	filter  []string
	pred    func(*tableRow) bool
	problem string
	match   matcher
	selKey  string
	cursor  int
	top     int
	// w and h are the table's size (SetSize), title and column names
	// included.
	w, h int
}

// newTable returns an empty table with the given columns; m compiles
// its filters (nil: column=value words and substrings).
func newTable(title string, cols []column, m matcher) *table {
	if m == nil {
		m = plainMatcher
	}
	t := &table{Title: title, cols: cols, sortCol: -1, match: m}
	t.SetRows(rowSet{})
	return t
}

// SetRows replaces the data, keeping the filter, the sort and the
// selected object (by key).
func (t *table) SetRows(rs rowSet) {
	if rs.gen != 0 && rs.gen == t.gen {
		// The rows it shows (a reading of an idle host: resBuilder
		// hands them over again): widths, filter and order stand.
		// 10,000 rows measured and re-sorted each reading otherwise.
		return
	}
	t.rows, t.gen = rs.rows, rs.gen
	t.widths = make([]int, len(t.cols))
	for i, c := range t.cols {
		t.widths[i] = width(c.Title)
	}
	for _, r := range t.rows {
		for i := range t.cols {
			if i < len(r.Cells) {
				if w := cellWidth(r.Cells[i]); w > t.widths[i] {
					t.widths[i] = w
				}
			}
		}
	}
	for i, c := range t.cols {
		if c.Max > 0 && t.widths[i] > c.Max {
			t.widths[i] = c.Max
		}
	}
	t.rebuild()
}

// cellWidth is the display width, fast for the ASCII that most cells are.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] < 0x20 {
			return width(s)
		}
	}
	return len(s)
}

// SetFilter sets the filter words: key=value words are filters
// (iproute2's where the view has them), other words must appear in
// some cell.
func (t *table) SetFilter(words []string) {
	t.filter = words
	t.pred, t.problem = nil, ""
	if len(words) > 0 {
		t.pred, t.problem = t.match(t.cols, words)
	}
	t.rebuild()
}

// FilterProblem says what is wrong with the filter words, if anything.
func (t *table) FilterProblem() string { return t.problem }

// plainMatcher is the filter of views without iproute2 filters: key=value
// compares a column's cells, other words are substrings of any cell.
func plainMatcher(cols []column, words []string) (func(*tableRow) bool, string) {
	type eq struct {
		col int
		val string
	}
	var eqs []eq
	var subs []string
	problem := ""
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			subs = append(subs, strings.ToLower(w))
			continue
		}
		c := columnIndex(cols, k)
		if c < 0 {
			problem = "no column named " + strconv.Quote(k) + " in this view"
			continue
		}
		eqs = append(eqs, eq{c, v})
	}
	return func(r *tableRow) bool {
		for _, e := range eqs {
			if e.col >= len(r.Cells) || !strings.EqualFold(r.Cells[e.col], e.val) {
				return false
			}
		}
		return containsAll(r, subs)
	}, problem
}

func columnIndex(cols []column, k string) int {
	for i, c := range cols {
		if strings.EqualFold(c.Key, k) || strings.EqualFold(c.Title, k) {
			return i
		}
	}
	return -1
}

// containsAll: every (lower-case) word is a substring of some cell.
func containsAll(r *tableRow, words []string) bool {
	for _, w := range words {
		found := false
		for _, c := range r.Cells {
			if strings.Contains(strings.ToLower(c), w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// CycleSort sorts by the next column (after the last: the data's order).
func (t *table) CycleSort() {
	t.sortCol++
	if t.sortCol >= len(t.cols) {
		t.sortCol = -1
	}
	t.rebuild()
}

// Reverse flips the sort order.
func (t *table) Reverse() {
	t.desc = !t.desc
	if t.sortCol < 0 {
		t.sortCol = 0
	}
	t.rebuild()
}

// rebuild recomputes the shown rows and puts the cursor back on the
// selected key.
func (t *table) rebuild() {
	t.view = t.view[:0]
	for i := range t.rows {
		if t.pred == nil || t.pred(&t.rows[i]) {
			t.view = append(t.view, i)
		}
	}
	if c := t.sortCol; c >= 0 && c < len(t.cols) {
		sort.SliceStable(t.view, func(a, b int) bool {
			ra, rb := &t.rows[t.view[a]], &t.rows[t.view[b]]
			less, eq := compareCell(ra, rb, c)
			if eq {
				return false
			}
			return less != t.desc
		})
	}
	t.follow()
}

func compareCell(a, b *tableRow, c int) (less, equal bool) {
	na, nb := math.NaN(), math.NaN()
	if c < len(a.Nums) {
		na = a.Nums[c]
	}
	if c < len(b.Nums) {
		nb = b.Nums[c]
	}
	if !math.IsNaN(na) && !math.IsNaN(nb) {
		return na < nb, na == nb
	}
	var sa, sb string
	if c < len(a.Cells) {
		sa = a.Cells[c]
	}
	if c < len(b.Cells) {
		sb = b.Cells[c]
	}
	return sa < sb, sa == sb
}

// follow moves the cursor to the selected key if it is still shown.
func (t *table) follow() {
	if t.selKey != "" {
		for i, ri := range t.view {
			if t.rows[ri].Key == t.selKey {
				t.cursor = i
				t.clamp()
				return
			}
		}
	}
	t.clamp()
	t.remember()
}

// clamp keeps the cursor on a row and the rows shown around it.
func (t *table) clamp() {
	if t.cursor >= len(t.view) {
		t.cursor = len(t.view) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	rowsH := t.rowsHeight()
	if t.cursor < t.top {
		t.top = t.cursor
	}
	if t.cursor >= t.top+rowsH {
		t.top = t.cursor - rowsH + 1
	}
	if t.top > max(0, len(t.view)-rowsH) {
		t.top = max(0, len(t.view)-rowsH)
	}
}

// SetSize sizes the table to w×h cells.
func (t *table) SetSize(w, h int) {
	if t.w == w && t.h == h {
		return
	}
	t.w, t.h = w, h
	t.clamp()
}

// rowsHeight is how many rows fit under the title and column names.
func (t *table) rowsHeight() int { return max(0, t.h-headerLines) }

func (t *table) remember() {
	if t.cursor < len(t.view) {
		t.selKey = t.rows[t.view[t.cursor]].Key
	}
}

// Move moves the cursor by delta rows.
func (t *table) Move(delta int) {
	t.cursor += delta
	t.clamp()
	t.remember()
}

// Home and End jump to the first and last rows.
func (t *table) Home() { t.cursor = 0; t.clamp(); t.remember() }

// End jumps to the last row.
func (t *table) End() { t.cursor = len(t.view) - 1; t.clamp(); t.remember() }

// Page moves a screen of rows (n = +1 down, -1 up).
func (t *table) Page(n int) { t.Move(n * max(1, t.rowsHeight()-1)) }

// Selected returns the selected row.
func (t *table) Selected() (tableRow, bool) {
	if t.cursor < len(t.view) {
		return t.rows[t.view[t.cursor]], true
	}
	return tableRow{}, false
}

// Counts returns the rows shown and the rows in all.
func (t *table) Counts() (shown, total int) { return len(t.view), len(t.rows) }

// headerLines is what Render draws above the rows: the title and the
// column names.
const headerLines = 2

// ClickRow selects the row drawn at line y of the last render.
func (t *table) ClickRow(y int) {
	i := t.top + y - headerLines
	if y >= headerLines && i < len(t.view) {
		t.cursor = i
		t.clamp()
		t.remember()
	}
}

// Render draws the table in exactly its size: the title with its
// counts, the column names, and the rows from the scroll window clamp
// keeps around the cursor.
func (t *table) Render(th *themes.Theme) string {
	w, rowsH := t.w, t.rowsHeight()
	cols := t.fit(w - 2)
	var b strings.Builder
	b.WriteString(t.titleLine(th, w))
	b.WriteByte('\n')
	b.WriteString(t.headLine(th, cols, w))
	for i := 0; i < rowsH; i++ {
		b.WriteByte('\n')
		vi := t.top + i
		if vi >= len(t.view) {
			if i == 0 && len(t.view) == 0 {
				b.WriteString(th.Render(themes.SlotDim, pad(t.emptyText(), w)))
			}
			continue
		}
		b.WriteString(t.rowLine(th, &t.rows[t.view[vi]], cols, w, vi == t.cursor))
	}
	return b.String()
}

func (t *table) emptyText() string {
	if len(t.rows) > 0 {
		return "  nothing matches the filter (esc clears it)"
	}
	return "  none"
}

// following says a tail table shows its newest row: the cursor is on
// the last row (or there is none yet).
func (t *table) following() bool { return t.cursor >= len(t.view)-1 }

func (t *table) titleLine(th *themes.Theme, w int) string {
	shown, total := t.Counts()
	s := th.Render(themes.SlotTitle, t.Title) + th.Render(themes.SlotDim, " ["+strconv.Itoa(shown)+"/"+strconv.Itoa(total)+"]")
	if len(t.filter) > 0 {
		s += th.Render(themes.SlotAccent, " </"+strings.Join(t.filter, " ")+">")
	}
	if t.tail {
		if t.following() {
			s += th.Render(themes.SlotOK, " following new rows")
		} else {
			s += th.Render(themes.SlotWarn, " paused (G follows again)")
		}
	}
	if t.sortCol >= 0 && t.sortCol < len(t.cols) {
		dir := "↑"
		if t.desc {
			dir = "↓"
		}
		if th.ASCII {
			dir = map[bool]string{false: "^", true: "v"}[t.desc]
		}
		s += th.Render(themes.SlotDim, " sort "+t.cols[t.sortCol].Title+dir)
	}
	return truncate(s, w, "…")
}

// minCutColumn is the least room the rightmost column is shown in, cut.
const minCutColumn = 16

// fit picks the columns that fit in w cells, dropping high Prio first.
func (t *table) fit(w int) []int {
	keep := make([]bool, len(t.cols))
	used := 0
	order := make([]int, len(t.cols))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return t.cols[order[a]].Prio < t.cols[order[b]].Prio })
	for _, i := range order {
		need := t.widths[i] + 1
		if used+need > w && t.cols[i].Prio > 0 {
			continue
		}
		keep[i] = true
		used += need
	}
	// Free text on the right is cut rather than dropped: one long cell
	// would otherwise take the whole column away from every row (the
	// events view lost every kernel line's text to one long line).
	if last := len(t.cols) - 1; last >= 0 && t.cols[last].Cut && !keep[last] && w-used >= minCutColumn {
		keep[last] = true
	}
	var out []int
	for i, k := range keep {
		if k {
			out = append(out, i)
		}
	}
	return out
}

func (t *table) headLine(th *themes.Theme, cols []int, w int) string {
	var b strings.Builder
	b.WriteString("  ")
	for _, i := range cols {
		b.WriteString(align(t.cols[i].Title, t.widths[i], t.cols[i].Right))
		b.WriteByte(' ')
	}
	return th.Render(themes.SlotHeader, pad(truncate(b.String(), w, ""), w))
}

func (t *table) rowLine(th *themes.Theme, r *tableRow, cols []int, w int, selected bool) string {
	var b strings.Builder
	b.WriteString(markSymbols[r.Mark])
	if r.Ours {
		b.WriteString(map[bool]string{false: "◆", true: "*"}[th.ASCII])
	} else {
		b.WriteByte(' ')
	}
	for _, i := range cols {
		cell := ""
		if i < len(r.Cells) {
			cell = r.Cells[i]
		}
		b.WriteString(align(cell, t.widths[i], t.cols[i].Right))
		b.WriteByte(' ')
	}
	line := pad(truncate(b.String(), w, "…"), w)
	switch {
	case selected:
		return th.Render(themes.SlotSelected, line)
	case r.Mark > markChanged:
		return th.Render(markSlot[r.Mark], line)
	case r.Ours:
		return th.Render(themes.SlotOurs, line)
	case r.Mark == markChanged:
		return th.Render(themes.SlotChanged, line)
	}
	return line
}

// markSlot is each mark's colour.
var markSlot = [...]themes.Slot{markNone: "", markChanged: themes.SlotChanged, markNew: themes.SlotNew,
	markWarn: themes.SlotWarn, markVanishing: themes.SlotVanished, markError: themes.SlotError}

// markText is a mark as a line outside a table begins: its symbol and a
// space, in its colour.
func markText(th *themes.Theme, m rowMark) string {
	if m == markNone {
		return "  "
	}
	return th.Render(markSlot[m], markSymbols[m]) + " "
}

// align pads or cuts s to exactly w cells.
func align(s string, w int, right bool) string {
	n := cellWidth(s)
	if n > w {
		return truncate(s, w, "…")
	}
	if right {
		return strings.Repeat(" ", w-n) + s
	}
	return s + strings.Repeat(" ", w-n)
}

// pad fills s with spaces to w cells.
func pad(s string, w int) string {
	return s + spaces(w-width(s))
}

// spaces is n blanks, none for n <= 0.
func spaces(n int) string {
	if n <= 0 {
		return ""
	}
	return strings.Repeat(" ", n)
}
