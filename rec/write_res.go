package rec

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// resState is what the recording last wrote of inspect's frames, to
// write only what changed.
type resState struct {
	frame uint64 // the last Frame.Seq
	lost  uint64 // trace's lost events last written
	objs  map[inspect.Key]objState
	// trans is, per QP, the history events already written. A traced
	// modify can reach the Tracker after the reading that saw its state,
	// and is then appended with its own, earlier time: what was written
	// is known by the event, not by a time mark.
	trans  map[inspect.Key]transDone
	usage  map[usageKey]int
	alerts map[alertKey]bool
	// gens are the generations of the last objects written: a reading
	// with the same ones (an idle host's: inspect.Generations.Same)
	// changed none of them.
	gens inspect.Generations
	// vanished are the QPs the frame's reading saw go, with the owner
	// each had: the end of its history is written with it.
	vanished map[inspect.Key]objState
	// histGen is the change mark of the last histories written
	// (Frame.HistoryGen): while no history changed, an idle host's
	// readings pass over 10,000 histories without a look at each.
	histGen uint64
}

// transDone is what was written of one QP's history: its events with
// their rows' ids, and the history's change mark then
// (Frame.HistoryGens): a history with the same mark is passed over
// without a look at its events (on an idle host, every QP's). A frame
// without marks (0) has each history looked at: the rows already
// written are found by their keys, at the cost of the look.
type transDone struct {
	rows map[transKey]int64
	gen  uint64
}

type objState struct {
	// val is the object as last read: a Snapshot is never written
	// after delivery, so the value stays as it was. An unchanged object
	// (most of them, on most readings) is told by comparing values, not
	// by encoding it again: JSON for 10,000 idle QPs was the recorder's
	// main cost per reading.
	val  inspect.Rowed
	pid  uint32
	comm string
	typ  rdma.QPType
}

// transKey tells one history event from another: a QP number that
// vanished and came back within a reading has two events of one time,
// told apart by Gone; a traced modify and the reading that saw the same
// state, by the modify.
type transKey struct {
	t        int64
	state    rdma.QPState
	gone     bool
	modified bool
}

type usageKey struct {
	dev  string
	pid  uint32
	kind rdma.Kind
}

type alertKey struct {
	what string
	key  inspect.Key
}

func newResState() resState {
	return resState{objs: map[inspect.Key]objState{}, trans: map[inspect.Key]transDone{},
		usage: map[usageKey]int{}, alerts: map[alertKey]bool{}}
}

func (s *resState) write(ctx context.Context, tx *sql.Tx, seq int64, t time.Time, key bool, f inspect.Frame) error {
	if s.frame != 0 && f.Seq > s.frame+1 {
		if err := gap(ctx, tx, seq, t, "missed", fmt.Sprintf("%d readings of the objects not recorded (the recorder fell behind)", f.Seq-s.frame-1)); err != nil {
			return err
		}
	}
	s.frame = f.Seq
	if f.Trace != nil && f.Trace.Lost > s.lost {
		if err := gap(ctx, tx, seq, t, "trace lost", fmt.Sprintf("%d traced modifies lost (the transitions may lack their attributes)", f.Trace.Lost-s.lost)); err != nil {
			return err
		}
		s.lost = f.Trace.Lost
	}
	if f.Err != nil {
		return gap(ctx, tx, seq, t, "failed", f.Err.Error())
	}
	for _, step := range []func(context.Context, *sql.Tx, int64, bool, inspect.Frame) error{
		s.writeObjects, s.writeTransitions, s.writeUsage, s.writeAlerts,
	} {
		if err := step(ctx, tx, seq, key, f); err != nil {
			return err
		}
	}
	return nil
}

// writeObjects writes each object that appeared or changed with its
// whole body, a vanish row for each that went, and on a keyframe every
// live object. A number now owned by another process, or a QP number
// of another type, is a new object: the old one vanished.
func (s *resState) writeObjects(ctx context.Context, tx *sql.Tx, seq int64, key bool, f inspect.Frame) error {
	s.vanished = nil
	gens := f.Snapshot.Generations()
	if !key && gens.Same(s.gens) {
		return nil // 10,000 idle QPs need no comparison each
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO objects (seq, op, kind, dev, num, pid, comm, qp_type, state, sq_psn, rq_psn, rqpn, body)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	vanish := func(k inspect.Key, o objState) error {
		if k.Kind == rdma.KindQP {
			if s.vanished == nil {
				s.vanished = map[inspect.Key]objState{}
			}
			s.vanished[k] = o
		}
		_, err := ins.ExecContext(ctx, seq, "vanish", string(k.Kind), k.Dev, k.ID, o.pid, o.comm, nil, nil, nil, nil, nil, nil)
		return err
	}
	seen := make(map[inspect.Key]bool, len(s.objs))
	var werr error
	f.Snapshot.EachObject(func(kind inspect.Kind, o *inspect.Object, id uint32, x inspect.Rowed) {
		if werr != nil {
			return
		}
		k := inspect.Key{Kind: kind, Dev: o.DevName, ID: id}
		seen[k] = true
		// The process, not the thread: the kernel records the thread
		// that created the object (Object.TGID).
		pid := o.PID
		if o.TGID != 0 {
			pid = o.TGID
		}
		now := objState{val: x, pid: pid, comm: o.Comm}
		var typ, state, sq, rq, rqpn any
		if q, ok := x.(*inspect.QP); ok {
			now.typ = q.Type
			typ, state, sq, rq, rqpn = q.Type.String(), q.State.String(), q.SQPSN, q.RQPSN, q.RQPN
		}
		prev, had := s.objs[k]
		op := "key"
		switch {
		case had && (prev.pid != now.pid || prev.typ != now.typ):
			if werr = vanish(k, prev); werr != nil {
				return
			}
			op = "appear"
		case !had:
			op = "appear"
		case !reflect.DeepEqual(prev.val, now.val):
			op = "change"
		case !key:
			s.objs[k] = now // the same, read again: keep the newer
			return
		}
		s.objs[k] = now
		body, err := json.Marshal(x)
		if err != nil {
			werr = err
			return
		}
		_, werr = ins.ExecContext(ctx, seq, op, string(kind), k.Dev, id, pid, o.Comm, typ, state, sq, rq, rqpn, string(body))
	})
	if werr != nil {
		return werr
	}
	for k, o := range s.objs {
		if !seen[k] {
			if err := vanish(k, o); err != nil {
				return err
			}
			delete(s.objs, k)
		}
	}
	s.gens = gens
	return nil
}

// writeTransitions writes the history events the frame adds: each
// QP's first state, every change (with the traced modify that made
// it, when traced) and its end. A traced modify that took the place of
// the entry a reading made of the same change (inspect's Tracker does
// so when the modify comes after the reading that saw its state) is
// written over that entry's row: one row per change.
func (s *resState) writeTransitions(ctx context.Context, tx *sql.Tx, seq int64, _ bool, f inspect.Frame) error {
	if f.HistoryGen != 0 && f.HistoryGen == s.histGen {
		return nil
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO transitions (seq, t, dev, qpn, state, gone, sq_psn, rq_psn, pid, comm, by_pid, by_comm, mask, attrs, ret, errno)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer ins.Close()
	for k, evs := range f.History {
		done, gen := s.trans[k], f.HistoryGens[k]
		if len(evs) == 0 || (gen != 0 && done.gen == gen) {
			continue
		}
		now := make(map[transKey]int64, len(evs))
		for _, e := range evs {
			now[keyOf(e)] = 0
		}
		// modifier is the last traced modify's process: the owner, as
		// far as anyone can tell, of a QP no reading has shown yet
		// (created and moved between two), since only the owner's
		// verbs context can modify it; its end (Tracker.ObserveGone)
		// is its too.
		var modifier objState
		for _, e := range evs {
			if m := e.Modify; m != nil {
				modifier.pid, modifier.comm = uint32(m.PID), m.Comm
			}
			tk := keyOf(e)
			if id, ok := done.rows[tk]; ok {
				now[tk] = id
				continue
			}
			owner, seen := s.objs[k]
			if v, ok := s.vanished[k]; ok && e.Gone {
				owner, seen = v, true // its end: the owner it had
			}
			if !seen {
				owner.pid, owner.comm = modifier.pid, modifier.comm
			}
			var byPID, byComm, mask, attrs, ret, errno any
			if m := e.Modify; m != nil {
				byPID, byComm, mask, ret, errno = m.PID, m.Comm, strings.Join(m.Mask, " "), m.Ret, m.Errno
				if len(m.AttrsJSON) > 0 {
					attrs = string(m.AttrsJSON)
				}
				if id, ok := done.replacedBy(now, e.State); ok {
					if _, err := tx.ExecContext(ctx, `UPDATE transitions SET t = ?, by_pid = ?, by_comm = ?, mask = ?, attrs = ?, ret = ?, errno = ? WHERE id = ?`,
						e.Time.UnixNano(), byPID, byComm, mask, attrs, ret, errno, id); err != nil {
						return err
					}
					now[tk] = id
					continue
				}
			}
			r, err := ins.ExecContext(ctx, seq, e.Time.UnixNano(), k.Dev, k.ID, e.State.String(), e.Gone, e.SQPSN, e.RQPSN,
				owner.pid, owner.comm, byPID, byComm, mask, attrs, ret, errno)
			if err != nil {
				return err
			}
			if now[tk], err = r.LastInsertId(); err != nil {
				return err
			}
		}
		s.trans[k] = transDone{rows: now, gen: gen}
	}
	for k := range s.trans {
		if _, ok := f.History[k]; !ok {
			delete(s.trans, k) // the Tracker no longer keeps its history
		}
	}
	s.histGen = f.HistoryGen
	return nil
}

func keyOf(e inspect.StateEvent) transKey {
	return transKey{t: e.Time.UnixNano(), state: e.State, gone: e.Gone, modified: e.Modify != nil}
}

// replacedBy finds the row of an entry a reading made of a change into
// state st that the history no longer holds (now): a traced modify took
// its place.
func (d transDone) replacedBy(now map[transKey]int64, st rdma.QPState) (int64, bool) {
	for k, id := range d.rows {
		if _, kept := now[k]; !kept && !k.modified && !k.gone && k.state == st {
			return id, true
		}
	}
	return 0, false
}

// writeUsage writes each process's object count of a kind when it
// changes; a count that dropped to nothing is written as 0.
func (s *resState) writeUsage(ctx context.Context, tx *sql.Tx, seq int64, _ bool, f inspect.Frame) error {
	now := map[usageKey]int{}
	comm := map[usageKey]string{}
	for _, p := range f.Update.Processes {
		for k, n := range p.Counts {
			uk := usageKey{p.Dev, p.PID, k}
			now[uk], comm[uk] = n, p.Comm
		}
	}
	put := func(k usageKey, n int, c string) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO usage (seq, dev, pid, comm, kind, count) VALUES (?, ?, ?, ?, ?, ?)", seq, k.dev, k.pid, c, string(k.kind), n)
		return err
	}
	for k, n := range now {
		if old, ok := s.usage[k]; !ok || old != n {
			if err := put(k, n, comm[k]); err != nil {
				return err
			}
		}
	}
	for k := range s.usage {
		if _, ok := now[k]; !ok {
			if err := put(k, 0, ""); err != nil {
				return err
			}
		}
	}
	s.usage = now
	return nil
}

// writeAlerts writes a begin row for each alert (a failed or stuck QP,
// an object of a dead owner) that is new, an end row for each that is
// over.
func (s *resState) writeAlerts(ctx context.Context, tx *sql.Tx, seq int64, _ bool, f inspect.Frame) error {
	type alert struct {
		pid             uint32
		comm, state, ev string
	}
	now := map[alertKey]alert{}
	for what, as := range map[string][]inspect.QPAlert{"failed": f.Update.Failed, "stuck": f.Update.Stuck} {
		for _, a := range as {
			now[alertKey{what, a.Key}] = alert{a.PID, a.Comm, a.State.String(), a.Evidence}
		}
	}
	for _, c := range f.Update.Dead {
		now[alertKey{"dead", c.Key}] = alert{pid: c.PID, comm: c.Comm, ev: "its owner " + c.Owner.String()}
	}
	put := func(op string, k alertKey, a alert) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO alerts (seq, t, op, what, kind, dev, num, pid, comm, state, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			seq, f.Update.Time.UnixNano(), op, k.what, string(k.key.Kind), k.key.Dev, k.key.ID, a.pid, a.comm, a.state, a.ev)
		return err
	}
	for k, a := range now {
		if !s.alerts[k] {
			if err := put("begin", k, a); err != nil {
				return err
			}
			s.alerts[k] = true
		}
	}
	for k := range s.alerts {
		if _, ok := now[k]; !ok {
			if err := put("end", k, alert{}); err != nil {
				return err
			}
			delete(s.alerts, k)
		}
	}
	return nil
}
