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
func objectSpec(name, title, about string, aliases ...string) viewSpec {
	kind := inspect.Kind(name)
	return viewSpec{name: name, title: title, about: about, aliases: aliases, make: func(c *common) component {
		return &objectView{c: c, kind: kind}
	}}
}

// objectView shows every process's objects of one kind; the rows come
// from the resource row builder (resdata.go), built off the UI goroutine.
type objectView struct {
	c    *common
	kind inspect.Kind
}

func (v *objectView) columns() []column   { return objectColumns[v.kind] }
func (v *objectView) filter() matcher     { return rowMatcher(string(v.kind)) }
func (v *objectView) heading() string     { return "" }
func (v *objectView) keys() []key.Binding { return nil }

func (v *objectView) take(msg tea.Msg) ([]tableRow, bool, tea.Cmd) {
	if m, ok := msg.(resMsg); ok {
		return m.d.rows[v.kind], true, nil
	}
	return nil, false, nil
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

// objectColumns are each object view's columns: they name the row
// fields (view.Field keys) inspect builds for `verbscope res`.
var objectColumns = map[inspect.Kind][]column{
	rdma.KindQP: withOwner(col("link", "link", 0, false), col("lqpn", "lqpn", 0, true),
		col("rqpn", "rqpn", 3, true), col("type", "type", 0, false), col("state", "state", 0, false),
		col("rq-psn", "rq-psn", 4, true), col("sq-psn", "sq-psn", 4, true), col("path-mig-state", "mig", 6, false),
		col("pdn", "pdn", 5, true)),
	rdma.KindCQ: withOwner(col("ifname", "dev", 0, false), col("cqn", "cqn", 0, true),
		col("cqe", "cqe", 0, true), col("users", "users", 3, true), col("poll-ctx", "poll-ctx", 4, false),
		col("adaptive-moderation", "dim", 6, false), col("ctxn", "ctxn", 5, true)),
	rdma.KindMR: withOwner(col("ifname", "dev", 0, false), col("mrn", "mrn", 0, true),
		col("mrlen", "mrlen", 0, true), col("lkey", "lkey", 3, false), col("rkey", "rkey", 3, false),
		col("iova", "iova", 5, false), col("pdn", "pdn", 4, true)),
	rdma.KindPD: withOwner(col("ifname", "dev", 0, false), col("pdn", "pdn", 0, true),
		col("users", "users", 3, true), col("local_dma_lkey", "local_dma_lkey", 5, false),
		col("unsafe_global_rkey", "global_rkey", 6, false), col("ctxn", "ctxn", 4, true)),
	rdma.KindCtx: withOwner(col("ifname", "dev", 0, false), col("ctxn", "ctxn", 0, true)),
	rdma.KindSRQ: withOwner(col("ifname", "dev", 0, false), col("srqn", "srqn", 0, true),
		col("type", "type", 0, false), col("lqpn", "lqpn", 3, false), col("pdn", "pdn", 4, true), col("cqn", "cqn", 4, true)),
	rdma.KindCMID: withOwner(col("link", "link", 0, false), col("cm-idn", "cm-idn", 0, true),
		col("lqpn", "lqpn", 2, true), col("qp-type", "qp-type", 3, false), col("state", "state", 0, false),
		col("ps", "ps", 4, false), col("src-addr", "src-addr", 3, false), col("dst-addr", "dst-addr", 3, false)),
}

// objectIndex is each object view's column of each field key.
var objectIndex = func() map[inspect.Kind]map[string]int {
	out := map[inspect.Kind]map[string]int{}
	for k, cols := range objectColumns {
		out[k] = colIndex(cols)
	}
	return out
}()

var owner = []column{col("pid", "pid", 2, true), col("tgid", "process", 1, true), {Key: "comm", Title: "comm", Prio: 1, Max: 24}}

func withOwner(cs ...column) []column { return append(cs, owner...) }
