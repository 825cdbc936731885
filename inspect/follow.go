package inspect

import (
	"maps"
	"slices"
	"time"

	"github.com/verbscope/verbscope/rdma"
)

// FollowEvent names what a FollowLine reports.
type FollowEvent string

// The events of a QP follow (verbscope res qp --follow, its -j "event").
const (
	// FollowPresent is a QP there when following began.
	FollowPresent FollowEvent = "present"
	// FollowAppeared and FollowVanished are a QP the Tracker saw come
	// or go (Update.Appeared, Update.Disappeared).
	FollowAppeared FollowEvent = "appeared"
	FollowVanished FollowEvent = "vanished"
	// FollowState is a change of state: seen by a snapshot
	// (Update.StateChanges, kept in the history), or set by a traced
	// modify.
	FollowState FollowEvent = "state"
	// FollowModify is a traced modify that left the state alone (no
	// IB_QP_STATE in its mask).
	FollowModify FollowEvent = "modify"
	// FollowModifyFailed is a traced modify the kernel refused.
	FollowModifyFailed FollowEvent = "modify_failed"
)

// FollowLine is one thing a QPFollower reports.
type FollowLine struct {
	Time  time.Time
	Event FollowEvent
	Key   Key
	// Row is the QP's line (present, appeared, vanished).
	Row Row
	// From and To are the states of a state change, or what a failed
	// modify asked for.
	From, To QPState
	// Modify is the traced modify behind the line, if any.
	Modify *Modify
}

// Change reports whether the line is a change, not a QP that was
// already there when following began.
func (l FollowLine) Change() bool { return l.Event != FollowPresent }

// QPFollower turns a Watcher's frames into the lines of a QP follow:
// the QPs present at first, then what each frame's Update says appeared
// or vanished, and the history entries that are new (the states the
// snapshots saw change and the traced modifies). Filters judge each
// line by its QP's row. It is not safe for concurrent use.
type QPFollower struct {
	filters Filters
	started bool
	seq     uint64
	// rows are the previous frame's QPs: a vanished QP's line.
	rows map[Key]Row
	// last is the newest history entry already reported, per QP.
	last map[Key]StateEvent
}

// NewQPFollower returns a follower that reports the QPs matching flt
// (all, when empty).
func NewQPFollower(flt Filters) *QPFollower {
	return &QPFollower{filters: flt, last: map[Key]StateEvent{}}
}

// Next returns what fr adds, oldest first: on the first frame the QPs
// present (FollowPresent), after it the changes. A frame with Err adds
// nothing.
func (f *QPFollower) Next(fr Frame) []FollowLine {
	if fr.Snapshot == nil {
		return nil
	}
	rows := qpRows(fr.Snapshot)
	var lines []FollowLine
	if !f.started {
		f.started = true
		for i := range fr.Snapshot.QPs {
			q := &fr.Snapshot.QPs[i]
			if row := q.Row(false); f.filters.Match(row) {
				lines = append(lines, FollowLine{Time: fr.Snapshot.Time, Event: FollowPresent, Key: qpKey(q), Row: row})
			}
		}
	} else {
		lines = f.changes(fr, rows)
	}
	f.rows, f.seq = rows, fr.Seq
	for k, h := range fr.History {
		if len(h) > 0 {
			f.last[k] = h[len(h)-1]
		}
	}
	for k := range f.last {
		if _, ok := fr.History[k]; !ok {
			delete(f.last, k) // the Tracker let its history go
		}
	}
	return lines
}

func (f *QPFollower) changes(fr Frame, rows map[Key]Row) []FollowLine {
	now := fr.Snapshot.Time
	appeared, vanished := f.comings(fr, rows)
	keys := map[Key]bool{}
	for k := range fr.History {
		keys[k] = true
	}
	maps.Copy(keys, appeared)
	maps.Copy(keys, vanished)
	var lines []FollowLine
	for _, k := range slices.SortedFunc(maps.Keys(keys), compareKey) {
		row, live := rows[k]
		old := f.rows[k]
		if !live {
			row = old
		}
		if row == nil {
			row = tracedRow(k, fr.History[k])
		}
		fresh, prev, hasPrev := f.fresh(k, fr.History[k])
		if vanished[k] && appeared[k] && old != nil && f.match(old) {
			// A new QP took the number: the old one went first.
			lines = append(lines, FollowLine{Time: now, Event: FollowVanished, Key: k, Row: old})
		}
		if !f.match(row) {
			continue
		}
		if appeared[k] {
			at := now
			if len(fresh) > 0 && fresh[0].Time.Before(at) {
				at = fresh[0].Time
			}
			lines = append(lines, FollowLine{Time: at, Event: FollowAppeared, Key: k, Row: row})
		}
		for _, e := range fresh {
			if e.Gone {
				hasPrev = false // what follows is a new QP's first sighting
				continue
			}
			if e.Modify != nil || hasPrev {
				lines = append(lines, stateLine(k, prev, e))
			}
			prev, hasPrev = e.State, true
		}
		if vanished[k] && !appeared[k] && old != nil {
			lines = append(lines, FollowLine{Time: now, Event: FollowVanished, Key: k, Row: old})
		}
	}
	slices.SortStableFunc(lines, func(a, b FollowLine) int { return a.Time.Compare(b.Time) })
	return lines
}

// match: without filters every line goes, even one whose QP has no row
// (no snapshot saw it and no traced modify named it).
func (f *QPFollower) match(row Row) bool {
	return len(f.filters) == 0 || row != nil && f.filters.Match(row)
}

// comings are the QPs that appeared and vanished since the previous
// frame: the Tracker's Update says so when no frame was missed (Seq
// follows on); after a gap, the missed Updates are lost and the rows
// tell instead.
func (f *QPFollower) comings(fr Frame, rows map[Key]Row) (appeared, vanished map[Key]bool) {
	appeared, vanished = map[Key]bool{}, map[Key]bool{}
	if fr.Seq == f.seq+1 {
		for _, c := range fr.Update.Appeared {
			if c.Key.Kind == rdma.KindQP {
				appeared[c.Key] = true
			}
		}
		for _, c := range fr.Update.Disappeared {
			if c.Key.Kind == rdma.KindQP {
				vanished[c.Key] = true
			}
		}
		return appeared, vanished
	}
	for k := range rows {
		if _, ok := f.rows[k]; !ok {
			appeared[k] = true
		}
	}
	for k := range f.rows {
		if _, ok := rows[k]; !ok {
			vanished[k] = true
		}
	}
	return appeared, vanished
}

func qpKey(q *QP) Key { return Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN} }

func qpRows(s *Snapshot) map[Key]Row {
	rows := make(map[Key]Row, len(s.QPs))
	for i := range s.QPs {
		rows[qpKey(&s.QPs[i])] = s.QPs[i].Row(false)
	}
	return rows
}

// tracedRow stands in for the row of a QP no snapshot saw (created,
// set up and destroyed between two), so that the filters can judge its
// traced modifies: its device, number, state and the process that
// modified it, from the last traced modify.
func tracedRow(k Key, h []StateEvent) Row {
	for i := len(h) - 1; i >= 0; i-- {
		if m := h[i].Modify; m != nil {
			q := QP{Object: Object{DevName: k.Dev, PID: uint32(m.PID), Comm: m.Comm}, LQPN: k.ID, State: h[i].State}
			q.Attrs.Add(AttrResPID)
			return q.Row(false)
		}
	}
	return nil
}

// fresh returns the entries of h after the last one reported, and the
// state before them (when known).
func (f *QPFollower) fresh(k Key, h []StateEvent) (out []StateEvent, prev QPState, ok bool) {
	last, seen := f.last[k]
	if !seen {
		return h, 0, false
	}
	for i := len(h) - 1; i >= 0; i-- {
		if sameEvent(h[i], last) {
			return h[i+1:], last.State, true
		}
	}
	return h, last.State, true // the reported ones were trimmed away
}

func sameEvent(a, b StateEvent) bool {
	return a.Time.Equal(b.Time) && a.State == b.State && a.Gone == b.Gone && a.Modify == b.Modify
}

// stateLine is a history entry after prev: a state change, or a traced
// modify (with its attributes, or failed with its errno and rdma.Check's
// finding).
func stateLine(k Key, prev QPState, e StateEvent) FollowLine {
	l := FollowLine{Time: e.Time, Event: FollowState, Key: k, From: prev, To: e.State, Modify: e.Modify}
	switch m := e.Modify; {
	case m == nil:
	case m.Ret < 0:
		l.Event, l.From, l.To = FollowModifyFailed, m.From, m.To
	case !m.HasState:
		l.Event = FollowModify
	default:
		l.From = m.From
	}
	return l
}
