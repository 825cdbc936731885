package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// objectSpec is the view of one kind of `rdma resource show`'s objects
// (the kind is the view's name: qp, cq, mr, pd, ctx, srq, cm_id).
func objectSpec(name, title, about string, cols []column, aliases ...string) viewSpec {
	kind := inspect.Kind(name)
	return viewSpec{name: name, title: title, about: about, aliases: aliases, kind: kind, cols: cols, make: func(c *common) component {
		return &objectView{c: c, kind: kind, cols: cols}
	}}
}

// objectView shows every process's objects of one kind; the rows come
// from the resource row builder (resdata.go), built off the UI goroutine.
type objectView struct {
	c    *common
	kind inspect.Kind
	cols []column
}

func (v *objectView) columns() []column   { return v.cols }
func (v *objectView) filter() matcher     { return rowMatcher(string(v.kind)) }
func (v *objectView) heading() string     { return "" }
func (v *objectView) keys() []key.Binding { return nil }

func (v *objectView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	if m, ok := msg.(resMsg); ok {
		return rowSet{m.d.rows[v.kind], m.d.rowsGen}, true, nil
	}
	return rowSet{}, false, nil
}

func (v *objectView) empty() string {
	if v.c.res == nil {
		return "reading RDMA netlink…"
	}
	return ""
}

func (v *objectView) detail(r tableRow) []string {
	if v.kind == rdma.KindQP && v.c.res != nil {
		return v.qpDetail(r)
	}
	return append(cellLines(v.c.theme, v.columns(), r), ownerLines(v.c.theme, r)...)
}

// ownerLines name the process: the kernel records the creating thread's
// id as pid; its thread group is the process.
func ownerLines(th *themes.Theme, row tableRow) []string {
	if row.res == nil || row.res.obj == nil {
		return nil
	}
	o := row.res.obj
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

// objectColumns are each object view's columns, from the registry:
// they name the row fields (view.Field keys) inspect builds for
// `verbscope res`, and objectIndex each column of each field key.
var objectColumns, objectIndex = func() (map[inspect.Kind][]column, map[inspect.Kind]map[string]int) {
	cols, index := map[inspect.Kind][]column{}, map[inspect.Kind]map[string]int{}
	for _, s := range registry {
		if s.kind != "" {
			cols[s.kind], index[s.kind] = s.cols, colIndex(s.cols)
		}
	}
	return cols, index
}()

// owner are the columns every object view ends with: who created it.
var owner = []column{col("pid", "pid", 2, true), col("tgid", "process", 1, true), {Key: "comm", Title: "comm", Prio: 1, Max: 24}}

func withOwner(cs ...column) []column { return append(cs, owner...) }
