package learn

import (
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// Status is where the learner is, as a pane shows it: plain data, read
// after each command.
type Status struct {
	Number   int // the lesson's number
	Position int // 1-based place in the course
	Lessons  int
	Title    string
	Step     int // 1-based
	Steps    int
	StepName string
	Text     string
	Checks   []CheckState
	Said     string // what the last step done did
	Over     bool   // the course is finished
	// QP is the learner's QP the step is about, for the state diagram:
	// "" when the session has none.
	QP QPStatus
}

// QPStatus is a QP where it stands in the state machine.
type QPStatus struct {
	Name string
	// State is as the kernel last said, else as the shell has it
	// (rdma.QPStateUnknown when the shell's word is none of the states).
	State rdma.QPState
	Next  []rdma.QPState // the states a modify may take it to (rdma.LegalNext)
}

// CheckState is one check of the current step as last judged.
type CheckState struct {
	Text       string
	OK, Judged bool
}

// Status reports the course's state now. It never waits for a running
// command.
func (t *Tutor) Status() Status {
	t.mu.Lock()
	defer t.mu.Unlock()
	l := t.o.Lessons[t.lesson]
	s := l.Steps[t.step]
	st := Status{Number: l.Number, Position: t.lesson + 1, Lessons: len(t.o.Lessons), Title: l.Title,
		Step: t.step + 1, Steps: len(l.Steps), StepName: s.Title, Text: s.Text, Said: t.said, Over: t.finished}
	judged := map[string]bool{}
	for _, o := range t.last {
		judged[o.Check.Text] = o.OK
	}
	for _, c := range s.Checks {
		ok, was := judged[c.Text]
		st.Checks = append(st.Checks, CheckState{Text: c.Text, OK: ok, Judged: was})
	}
	if t.sess != nil {
		st.QP = t.sess.qpStatus(s)
	}
	return st
}

// qpStatus is the QP a step is about: the first QP its checks name,
// else the session's newest. Its state is the kernel's as of the last
// judgement (the kernel may have moved it to ERR), else the shell's.
func (s *session) qpStatus(step Step) QPStatus {
	state := s.Engine.State()
	var qp front.Object
	found := false
	for _, c := range step.Checks {
		if o, ok := state.Object(c.Subject); ok && c.Kind == checkObject && o.Kind == rdma.KindQP {
			qp, found = o, true
			break
		}
	}
	for o := range state.Objects() {
		if !found && o.Kind == rdma.KindQP && o.ID > qp.ID {
			qp = o
		}
	}
	if qp.Kind != rdma.KindQP {
		return QPStatus{}
	}
	known := qp.State != rdma.QPStateUnknown
	qs := QPStatus{Name: qp.Name, State: qp.State}
	s.mu.Lock()
	if kv := s.kv; kv != nil {
		if k, ok := kv.QPStates[qp.QPN]; ok {
			qs.State, known = k, true
		}
	}
	s.mu.Unlock()
	if known {
		for _, n := range rdma.LegalNext(qs.State, qp.QPType) {
			if n != qs.State {
				qs.Next = append(qs.Next, n)
			}
		}
	}
	return qs
}
