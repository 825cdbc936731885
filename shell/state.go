package shell

import (
	"os"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// State is the session's objects as of the last finished command, with
// the command running now, if any. It reads an immutable snapshot: it
// never takes the session lock, so a pane can draw while `listen` waits.
func (s *Shell) State() front.State {
	if st := s.state.Load(); st != nil {
		return *st
	}
	return front.State{PID: os.Getpid()}
}

// publish stores a new snapshot (the caller holds s.mu): the last one
// with the objects the command reached described again (or left out, if
// gone), and the command running (or ""). The others are the last
// snapshot's, shared, not queried again: what the kernel did to them
// meanwhile is the inspector's to show.
func (s *Shell) publish(running string) {
	st := s.State()
	for e := range s.objs.touched {
		if s.objs.byName[e.name] == e {
			st = st.Put(s.objectOf(e))
		} else {
			st = st.Remove(e.id)
		}
	}
	clear(s.objs.touched)
	st.Seq, st.Running = s.seq.Add(1), running
	s.state.Store(&st)
}

// setRunning republishes the last snapshot's objects with another running
// command, without querying anything (the command has not run yet, or
// has not finished).
func (s *Shell) setRunning(running string) {
	st := s.State()
	st.Seq, st.Running = s.seq.Add(1), running
	s.state.Store(&st)
}

// object describes one entry for the snapshot.
func (s *Shell) object(e *entry) front.Object {
	o := front.Object{ID: e.id, Kind: e.kind, Name: e.name, Device: e.device()}
	if e.parent != nil {
		o.Parent = e.parent.name
	}
	switch e.kind {
	case rdma.KindCQ:
		o.CQE = e.cq.CQE()
	case rdma.KindMR:
		o.Addr, o.Length = e.mr.Addr(), uint64(e.mr.Len())
		o.LKey, o.RKey, o.Access = e.mr.LKey(), e.mr.RKey(), e.mr.Access().String()
	case rdma.KindAH:
		o.Port = int(e.ah.Attr().PortNum)
	case rdma.KindQP:
		qpObject(e, &o)
	}
	return o
}

// qpObject fills in what a QP is now: its number, type, state, port, CQs
// and the modifies it went through (one ibv_query_qp).
func qpObject(e *entry, o *front.Object) {
	o.QPN, o.QPType = e.qp.Num(), e.qp.Type()
	o.SendCQ, o.RecvCQ = e.sendCQ.name, e.recvCQ.name
	o.State = rdma.QPStateUnknown
	if q, err := e.qp.Query(rdma.AttrState | rdma.AttrPort); err == nil {
		o.State = q.State
		if q.State != rdma.QPStateReset {
			o.Port = int(q.Port)
		}
	}
	for _, h := range e.history {
		o.History = append(o.History, front.Transition{At: h.At, From: h.From, To: h.To})
	}
}

// device names the device an object lives on.
func (e *entry) device() string {
	for p := e; p != nil; p = p.parent {
		if p.kind == rdma.KindCtx && p.ctx != nil {
			return p.ctx.Device.Name
		}
	}
	return ""
}
