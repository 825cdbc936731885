package ui

import (
	"strconv"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

// maxEvents bounds the events view.
const maxEvents = 2000

// eventsSpec is the view of what happened: objects appearing, vanishing,
// changing state or getting stuck, as the Tracker reported them. The
// resource row builder records them (record, below) off the UI goroutine.
var eventsSpec = viewSpec{name: "events", title: "events", about: "what appeared, vanished, changed state or got stuck, and what the RDMA drivers wrote to the kernel log", aliases: []string{"event"}, tail: true,
	make: func(c *common) component { return eventsView{c} }}

type eventsView struct{ c *common }

var eventCols = []column{col("time", "time", 0, false), col("what", "what", 0, false), col("object", "object", 0, false),
	col("process", "process", 1, false), {Key: "detail", Title: "detail", Prio: 2, Cut: true}}

func (eventsView) columns() []column   { return eventCols }
func (eventsView) filter() matcher     { return nil }
func (eventsView) heading() string     { return "" }
func (eventsView) keys() []key.Binding { return nil }

func (eventsView) take(msg tea.Msg) (rowSet, bool, tea.Cmd) {
	switch m := msg.(type) {
	case resMsg:
		return rowSet{m.d.events, m.d.eventsGen}, true, nil
	case kernelMsg:
		return rowSet{m.events, m.eventsGen}, true, nil
	}
	return rowSet{}, false, nil
}

func (eventsView) empty() string {
	return "nothing happened yet: objects appearing, vanishing and changing state show here"
}

func (v eventsView) detail(r tableRow) []string { return cellLines(v.c.theme, eventCols, r) }

// recordKernel appends the RDMA drivers' kernel log lines to the events
// view, naming the QP a line names on its device ("rxe0 qp 17").
func (p *resBuilder) recordKernel(ls []sysfsmon.KernelLine) {
	for _, l := range ls {
		p.seq++
		obj := l.Device
		text := l.LevelName() + ": " + view.Printable(l.Text)
		if n, ok := l.QPN(); ok && l.Device != "" {
			k := inspect.Key{Kind: rdma.KindQP, Dev: l.Device, ID: n}
			obj = k.String()
			p.kernelLine(k, l.Time.Format("15:04:05")+" "+text)
		}
		mark := markNone
		switch {
		case l.Level <= 3:
			mark = markError
		case l.Level == 4:
			mark = markWarn
		}
		p.addEvent(mark, l.Time.Format("15:04:05"), "kernel", obj, "["+l.Driver+"]", text)
	}
	p.trimEvents()
}

// maxKernelPerQP bounds the kernel lines kept for one QP's detail.
const maxKernelPerQP = 20

// kernelLine keeps a line for QP k's detail. The map and its slices are
// copied on write: a resData already sent keeps the ones it was given.
func (p *resBuilder) kernelLine(k inspect.Key, line string) {
	m := make(map[inspect.Key][]string, len(p.kernel)+1)
	for key, ls := range p.kernel {
		m[key] = ls
	}
	ls := append(append([]string(nil), m[k]...), line)
	m[k] = ls[max(0, len(ls)-maxKernelPerQP):]
	p.kernel = m
}

// addEvent appends an event row of the reading p.seq: the events are
// then other rows, with a new generation (rowSet).
func (p *resBuilder) addEvent(mark rowMark, cells ...string) {
	p.events = append(p.events, tableRow{Key: strconv.Itoa(len(p.events)) + "/" + strconv.Itoa(p.seq), Cells: cells, Mark: mark})
	p.eventsGen = p.newGen()
}

// trimEvents keeps the newest maxEvents.
func (p *resBuilder) trimEvents() {
	if len(p.events) > maxEvents {
		p.events = append([]tableRow(nil), p.events[len(p.events)-maxEvents:]...)
	}
}

// record appends the Tracker's news to the events view.
func (p *resBuilder) record(f inspect.Frame, now time.Time) {
	u := f.Update
	p.seq++
	ts := u.Time
	if ts.IsZero() {
		ts = now
	}
	add := func(what string, mark rowMark, k inspect.Key, pid uint32, comm, detail string) {
		p.addEvent(mark, ts.Format("15:04:05"), what, k.String(), procName(pid, comm), detail)
	}
	if p.seq > 1 { // the first frame's objects were there before we looked
		for _, c := range u.Appeared {
			add("appeared", markNew, c.Key, c.PID, c.Comm, "")
		}
	}
	for _, c := range u.Disappeared {
		add("vanished", markVanishing, c.Key, c.PID, c.Comm, "")
	}
	for _, c := range u.StateChanges {
		mark := markChanged
		if c.To.Failed() {
			mark = markError
		}
		add("state", mark, c.Key, 0, "", c.From.String()+"→"+c.To.String())
	}
	for _, a := range u.Stuck {
		add("stuck", markWarn, a.Key, a.PID, a.Comm, a.Evidence)
	}
	p.trimEvents()
}
