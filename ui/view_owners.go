package ui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/view"
)

// ownersSpec is the view of who holds the objects: processes, or their
// systemd units, containers or pods (Sources.Owners looks them up).
var ownersSpec = viewSpec{name: "owners", title: "owners", about: "who holds the objects: by process, unit, container or pod (b cycles), pinned bytes against memlock",
	aliases: []string{"proc", "cgroup", "owner"},
	make: func(c *common) component {
		return &ownersView{c: c, by: owners.ByProcess,
			cycle: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "group owners by process/unit/container/pod")),
			open:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "owners: open the group's objects, filtered")),
			info:  key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "owners: the group's processes (cmdline, cgroup, memlock)"))}
	}}

type ownersView struct {
	c                 *common
	by                owners.By
	cycle, open, info key.Binding
	// groups are the rows' groups, by row key, for enter.
	groups map[string]*owners.Group
}

// ownerCols: the first column is the group's key, or for a process where
// it lives (its container, else its unit, else its cgroup path).
var ownerCols = []column{
	{Key: "owner", Title: "owner", Max: 40}, col("pids", "pids", 2, false), {Key: "comm", Title: "comm", Prio: 1, Max: 24},
	col("user", "user", 4, false), col("qp", "QPs", 0, true), {Key: "qp-states", Title: "states", Prio: 3, Max: 28},
	col("cq", "CQs", 3, true), col("mr", "MRs", 0, true), col("pd", "PDs", 3, true),
	col("pinned", "pinned", 0, true), col("vmpin", "VmPin", 3, true), col("memlock", "memlock", 1, true), col("memlock-used", "used", 0, true),
	{Key: "growth", Title: "growth", Prio: 1, Max: 24}, col("flags", "flags", 2, false),
}

var ownerIndex = func() map[string]int {
	ix := colIndex(ownerCols)
	ix["pid"] = ix["pids"] // one process: its pid
	return ix
}()

func (v *ownersView) columns() []column   { return ownerCols }
func (v *ownersView) filter() matcher     { return rowMatcher(owners.Kind) }
func (v *ownersView) keys() []key.Binding { return []key.Binding{v.cycle, v.open, v.info} }

// heading names the grouping and the host's locked memory: what every
// process's MRs pin, what the kernel counts (VmPin), of the host's RAM.
func (v *ownersView) heading() string {
	h := "owners by " + string(v.by)
	if v.c.res == nil || v.c.src.Owners == nil {
		return h
	}
	host := owners.HostOf(v.c.res.owners, v.c.src.Host.MemTotal)
	h += " · host: MRs " + view.Bytes(host.Pinned).Short() + ", VmPin " + view.Bytes(host.VmPin).Short()
	if host.MemTotal > 0 {
		h += " of " + view.Bytes(host.MemTotal).Short() + " RAM"
	}
	return h
}

func (v *ownersView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	switch msg := msg.(type) {
	case resMsg:
		return rowSet{rows: v.rows()}, true, nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, v.cycle):
			v.by = v.by.Next()
			v.c.note(themes.SlotDim, "owners grouped by "+string(v.by))
			return rowSet{rows: v.rows()}, true, nil
		case key.Matches(msg, v.open) && v.c.hasSelected:
			return rowSet{}, false, v.openGroup(v.c.selected.Key)
		case key.Matches(msg, v.info):
			return rowSet{}, false, func() tea.Msg { return openDetailMsg{} }
		}
	}
	return rowSet{}, false, nil
}

func (v *ownersView) rows() []tableRow {
	v.groups = map[string]*owners.Group{}
	if v.c.res == nil {
		return nil
	}
	gs := owners.Groups(v.c.res.owners, v.by)
	rows := make([]tableRow, 0, len(gs))
	for i := range gs {
		g := &gs[i]
		r := g.Row()
		owner := g.Key
		if g.By == owners.ByProcess {
			owner = owners.KeyOf(&g.Processes[0], owners.ByPlace)
		}
		row := fromFields(ownerCols, ownerIndex, append(view.Row{{Key: "owner", Text: owner}}, r...))
		row.Cells[ownerIndex["pinned"]] = view.Bytes(g.Pinned).Short()
		row.Cells[ownerIndex["vmpin"]] = view.Bytes(g.VmPin).Short()
		if lim, _ := g.Memlock(); !lim.Unlimited && g.Worst >= 0 {
			row.Cells[ownerIndex["memlock"]] = view.Bytes(lim.Value).Short()
		}
		switch flags := g.Flags(); {
		case len(flags) > 0 && flags[0] == owners.FlagMemlock:
			row.Mark = markError
		case len(flags) > 0:
			row.Mark = markWarn
		}
		v.groups[row.Key] = g
		rows = append(rows, row)
	}
	return rows
}

func (v *ownersView) empty() string {
	switch {
	case v.c.res == nil:
		return "reading RDMA netlink…"
	case v.c.src.Owners == nil:
		return "this dashboard does not look processes up"
	}
	return "no process holds RDMA objects"
}

// detail lists each member: pid, command line, user, cgroup, memlock
// (i opens it: enter opens the group's objects).
func (v *ownersView) detail(r tableRow) []string {
	out := cellLines(v.c.theme, ownerCols, r)
	g := v.groups[r.Key]
	if g == nil {
		return out
	}
	th := v.c.theme
	for _, p := range g.Processes {
		out = append(out, "", th.Render(themes.SlotHeader, "process "+strconv.Itoa(p.TGID))+" "+view.Printable(p.Comm))
		add := func(k, val string) {
			if val != "" {
				out = append(out, "  "+th.Render(themes.SlotHeader, padTo(k, 12))+view.Printable(val))
			}
		}
		add("cmdline", p.Cmdline)
		add("user", p.User)
		add("cgroup", p.Cgroup.Path)
		add("pinned", view.Bytes(p.Pinned).Short()+" in MRs; the kernel counts "+view.Bytes(p.VmPin).Short()+" (VmPin)")
		lim := "unlimited"
		if !p.MemlockSoft.Unlimited {
			lim = view.Bytes(p.MemlockSoft.Value).Short() + " (" + strconv.Itoa(int(p.MemlockRatio()*100+0.5)) + "% used)"
		}
		if p.IPCLock {
			lim += "; CAP_IPC_LOCK: the limit does not apply"
		}
		if !p.Gone {
			add("memlock", lim)
		} else {
			add("state", "exited: its objects are held by another process's descriptor, or leaked")
		}
	}
	return out
}

// gotoObjectsMsg asks the root to filter every object view by words and
// show view name.
type gotoObjectsMsg struct {
	name  string
	words []string
}

// openGroup shows the group's objects: every object view filtered by
// the threads that created them (the kernel's pid of an object is the
// creating thread, so a process's objects may carry several).
func (v *ownersView) openGroup(k string) tea.Cmd {
	g := v.groups[k]
	if g == nil || v.c.res == nil || v.c.res.frame.Snapshot == nil {
		return nil
	}
	tgids := map[int]bool{}
	for _, p := range g.Processes {
		tgids[p.TGID] = true
	}
	pids := map[uint32]bool{}
	first := ""
	v.c.res.frame.Snapshot.Each(func(k inspect.Kind, o *inspect.Object, _ uint32) {
		tgid := o.TGID
		if tgid == 0 {
			tgid = o.PID
		}
		if o.HasPID() && tgids[int(tgid)] {
			pids[o.PID] = true
			if first == "" {
				first = string(k)
			}
		}
	})
	if len(pids) == 0 {
		v.c.note(themes.SlotWarn, "the group's objects have no pid to filter by: their processes exited")
		return nil
	}
	var list []string
	for p := range pids {
		list = append(list, strconv.FormatUint(uint64(p), 10))
	}
	sortNumeric(list)
	words := []string{"pid=" + strings.Join(list, ",")}
	return func() tea.Msg { return gotoObjectsMsg{name: first, words: words} }
}

// sortNumeric sorts decimal numbers by value.
func sortNumeric(s []string) {
	slices.SortFunc(s, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
}
