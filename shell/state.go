package shell

import (
	"os"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
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

// publish stores a new snapshot: the objects as they are now (the caller
// holds s.mu) and the command running (or "").
func (s *Shell) publish(running string) {
	st := &front.State{Seq: s.seq.Add(1), PID: os.Getpid(), Running: running}
	names := &eventNames{qps: map[uint32]string{}, cqs: map[*verbs.CQ]string{}}
	for _, e := range s.sorted() {
		if e.closed() {
			continue
		}
		st.Objects = append(st.Objects, s.object(e))
		switch e.kind {
		case rdma.KindQP:
			names.qps[e.qp.Num()] = e.name
		case rdma.KindCQ:
			names.cqs[e.cq] = e.name
		}
	}
	s.names.Store(names)
	s.state.Store(st)
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
	o := front.Object{Kind: e.kind, Name: e.name, Device: e.device()}
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
		s.qpObject(e, &o)
	}
	return o
}

// qpObject fills in what a QP is now: its number, type, state, port and
// CQs, the modifies it went through and where it can go next.
func (s *Shell) qpObject(e *entry, o *front.Object) {
	typ := e.qp.Type()
	o.QPN, o.QPType = e.qp.Num(), typ.String()
	o.SendCQ, o.RecvCQ = e.sendCQ.name, e.recvCQ.name
	cur := rdma.QPStateUnknown
	if q, err := e.qp.Query(rdma.AttrState | rdma.AttrPort); err == nil {
		cur = q.State
		if q.State != rdma.QPStateReset {
			o.Port = int(q.Port)
		}
	}
	o.State = cur.String()
	for _, h := range e.history {
		o.History = append(o.History, front.Transition{At: h.At, From: h.From.String(), To: h.To.String()})
	}
	if cur == rdma.QPStateUnknown {
		return
	}
	o.Next = nextSteps(cur, typ)
}

// nextSteps judges a modify from cur to every state with the kernel's
// rules: the transition's required attributes, and for an illegal one the
// checker's reason.
func nextSteps(cur verbs.QPState, typ verbs.QPType) []front.Step {
	var out []front.Step
	for _, to := range rdma.QPStates {
		rule := rdma.LookupTransition(cur, to, typ)
		v := rdma.Check(cur, to, typ, rdma.AttrState|rule.Required, nil, nil)
		st := front.Step{To: to.String(), Legal: v.Known && v.TableOK}
		if rule.Valid {
			st.Needs = rule.Required.Names()
		}
		if !st.Legal {
			if d := v.Decisive(); d != nil {
				st.Why = d.Problem
			} else {
				st.Why = "the kernel's table (qp_state_table) has no " + cur.String() + "→" + to.String() + " for " + typ.String()
			}
		}
		out = append(out, st)
	}
	return out
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
