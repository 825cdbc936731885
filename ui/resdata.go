package ui

import (
	"fmt"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// How long marks last: a new or changed row stands out for markFor, a
// vanished one stays (dimmed) for keepGone.
const (
	markFor  = 3 * time.Second
	keepGone = 5 * time.Second
)

// resData is one watch frame prepared for the tables, off the UI
// goroutine: the rows of every object view with their marks, the events
// so far, and what the header and the detail need. It is never changed
// after it is sent.
type resData struct {
	frame inspect.Frame
	rows  map[inspect.Kind][]tableRow
	// rowsGen is the generation of rows, every kind's (rowSet); events
	// have their own.
	rowsGen   uint64
	events    []tableRow
	eventsGen uint64
	// qpStates counts live QPs by state for the header.
	qpStates map[rdma.QPState]int
	// owners are the processes holding the objects (Sources.Owners).
	owners []owners.Process
	// kernel are the kernel log's lines that name a QP, by QP.
	kernel map[inspect.Key][]string
}

// resBuilder turns frames into resData. It keeps what marks need (when each
// row was first seen, last changed, vanished) and lives on the Cmd
// chain: one frame at a time, never touched by Update.
type resBuilder struct {
	meta map[inspect.Key]*rowMeta
	// events are the events view's rows, eventsGen their generation
	// (addEvent).
	events    []tableRow
	eventsGen uint64
	// gen is the last generation given to rows (newGen).
	gen uint64
	seq int
	// kernel are the kernel log's lines naming each QP (the newest
	// maxKernelPerQP of each), copied into every resData.
	kernel map[inspect.Key][]string
	// last is the newest frame's time.
	last time.Time
	// prev is the last build: a frame with the same objects (the same
	// generations: an idle host's reading) reuses its rows, with their
	// generation, when none of them would change with time (stable)
	// and the shell pane's objects are the same (ours).
	prev struct {
		gens    inspect.Generations
		rows    map[inspect.Kind][]tableRow
		rowsGen uint64
		states  map[rdma.QPState]int
		ours    string
		stable  bool
	}
	owners owners.Cache
}

type rowMeta struct {
	kind    inspect.Kind
	first   time.Time
	changed time.Time
	gone    time.Time
	// row is the last row built; a QP whose next reading has the same
	// qpSig as the copy the row holds reuses it (10,000 idle QPs
	// rebuild nothing).
	row tableRow
}

// qpSig holds every QP field its row shows.
type qpSig struct {
	port, lqpn, rqpn, rqpsn, sqpsn, pdn, pid, tgid uint32
	typ                                            rdma.QPType
	state                                          rdma.QPState
	mig                                            inspect.PathMigState
	attrs                                          inspect.AttrSet
	comm, dev, subtype                             string
}

func sigOf(q *inspect.QP) qpSig {
	return qpSig{q.Port, q.LQPN, q.RQPN, q.RQPSN, q.SQPSN, q.PDN, q.PID, q.TGID, q.Type, q.State, q.PathMigState,
		q.Attrs, q.Comm, q.DevName, q.Subtype}
}

// resObj is what a row of `rdma resource show` stands for: its key and
// a copy of the object out of its snapshot, for the filter's fields and
// the detail. A row that outlives its frame (reused while nothing
// changed, or a vanished row kept a few seconds) then holds that object
// only, not the snapshot's whole array.
type resObj struct {
	key inspect.Key
	obj *inspect.Object
	qp  *inspect.QP // nil for the other kinds
	x   inspect.Rowed
}

func detached(k inspect.Key, x inspect.Rowed) *resObj {
	r := &resObj{key: k}
	if e, ok := x.(inspect.Entry); ok {
		c := e.Detach()
		r.x, r.obj = c, c.Base()
		r.qp, _ = c.(*inspect.QP)
	}
	return r
}

func newResBuilder() *resBuilder { return &resBuilder{meta: map[inspect.Key]*rowMeta{}} }

// newGen is the generation of rows just made (rowSet): counted by the
// builder, not the process, so that two dashboards fed the same frames
// hold the same rows and generations.
func (p *resBuilder) newGen() uint64 {
	p.gen++
	return p.gen
}

// build makes the tables of one frame; st tells the shell pane's
// objects (this process's).
func (p *resBuilder) build(f inspect.Frame, st front.State) *resData {
	d := &resData{frame: f, rows: map[inspect.Kind][]tableRow{}, qpStates: map[rdma.QPState]int{}}
	if f.Snapshot == nil {
		d.events, d.eventsGen = p.events, p.eventsGen
		return d
	}
	now := f.Snapshot.Time
	if now.Before(p.last) {
		// A replay stepped back: what was new or changed "since" a
		// later frame means nothing; start the marks afresh.
		p.meta, p.events, p.eventsGen, p.seq = map[inspect.Key]*rowMeta{}, nil, 0, 0
		p.prev.gens = inspect.Generations{}
	}
	p.last = now
	ourQPs := map[uint32]string{}
	for o := range st.Objects() {
		if o.Kind == "qp" {
			ourQPs[o.QPN] = o.Name
		}
	}
	ours := fmt.Sprint(st.PID, ourQPs)
	gens := f.Snapshot.Generations()
	if p.prev.stable && p.prev.ours == ours && gens.Same(p.prev.gens) {
		// 10,000 idle QPs cost a map lookup each otherwise, every
		// reading (BenchmarkPrepare10kQPs).
		d.rows, d.rowsGen, d.qpStates = p.prev.rows, p.prev.rowsGen, p.prev.states
		p.record(f, now)
		d.events, d.eventsGen, d.kernel = p.events, p.eventsGen, p.kernel
		return d
	}
	seen := make(map[inspect.Key]bool, len(p.meta))
	d.rows[rdma.KindQP] = make([]tableRow, 0, len(f.Snapshot.QPs))
	f.Snapshot.EachObject(func(kind inspect.Kind, o *inspect.Object, id uint32, x inspect.Rowed) {
		cols := objectColumns[kind]
		if cols == nil {
			return
		}
		k := inspect.Key{Kind: kind, Dev: o.DevName, ID: id}
		qp, _ := x.(*inspect.QP)
		m := p.meta[k]
		var row tableRow
		if m != nil && m.gone.IsZero() && qp != nil && m.row.res != nil && m.row.res.qp != nil && sigOf(m.row.res.qp) == sigOf(qp) {
			row = m.row // nothing it shows changed
			row.Mark, row.Ours, row.OursName = markNone, false, ""
		} else {
			row = fromFields(cols, objectIndex[kind], x.Row(false))
			// The fields are built again when a filter asks: 10,000 QPs'
			// fields are most of the dashboard's memory otherwise.
			row.Fields, row.res = nil, detached(k, x)
			row.Key = k.String()
		}
		pid := o.PID
		if o.TGID != 0 {
			pid = o.TGID
		}
		row.Ours = st.PID != 0 && o.HasPID() && int(pid) == st.PID
		if qp != nil {
			d.qpStates[qp.State]++
			if qp.State.Failed() {
				row.Mark = markError
			}
			if name, ok := ourQPs[qp.LQPN]; ok && row.Ours {
				row.OursName = name
			}
		}
		p.mark(&row, k, kind, now)
		seen[k] = true
		d.rows[kind] = append(d.rows[kind], row)
	})
	p.ghosts(d, seen, now)
	// The first build after a start or a step back marks nothing new
	// (p.seq 0), though the next marks what it saw first then.
	d.rowsGen = p.newGen()
	p.prev.gens, p.prev.rows, p.prev.rowsGen, p.prev.states, p.prev.ours, p.prev.stable = gens, d.rows, d.rowsGen, d.qpStates, ours, p.seq > 0 && stableRows(d.rows)
	p.record(f, now)
	d.events, d.eventsGen = p.events, p.eventsGen
	d.kernel = p.kernel
	return d
}

// stableRows reports whether rows would be built the same later from
// the same objects: no mark that fades with time (new, changed) and no
// vanished row kept a while.
func stableRows(rows map[inspect.Kind][]tableRow) bool {
	for _, rs := range rows {
		for i := range rs {
			switch rs[i].Mark {
			case markNew, markChanged, markVanishing:
				return false
			}
		}
	}
	return true
}

// mark sets a row's mark from its history: error beats new beats changed.
func (p *resBuilder) mark(r *tableRow, k inspect.Key, kind inspect.Kind, now time.Time) {
	m := p.meta[k]
	switch {
	case m == nil || !m.gone.IsZero():
		m = &rowMeta{kind: kind, first: now}
		p.meta[k] = m
	case !sameCells(m.row.Cells, r.Cells):
		m.changed = now
	}
	m.row = *r
	if r.Mark != markNone {
		return
	}
	switch {
	case now.Sub(m.first) < markFor && p.seq > 0:
		r.Mark = markNew
	case !m.changed.IsZero() && now.Sub(m.changed) < markFor:
		r.Mark = markChanged
	}
}

// ghosts keeps rows that vanished less than keepGone ago, dimmed.
func (p *resBuilder) ghosts(d *resData, seen map[inspect.Key]bool, now time.Time) {
	for key, m := range p.meta {
		if seen[key] {
			continue
		}
		if m.gone.IsZero() {
			m.gone = now
		}
		if now.Sub(m.gone) >= keepGone {
			delete(p.meta, key)
			continue
		}
		g := m.row
		g.Mark = markVanishing
		d.rows[m.kind] = append(d.rows[m.kind], g)
	}
}

func sameCells(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
