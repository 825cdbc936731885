package front

import (
	"iter"
	"time"

	"github.com/verbscope/verbscope/rdma"
)

// State is an immutable snapshot of a session, taken after each command.
// Its objects live in persistent trees: the next snapshot shares every
// object the command did not change with this one, so taking it costs
// what changed, not what exists, and a reader may keep this one as long
// as it likes.
type State struct {
	Seq     uint64 // increases with every snapshot
	PID     int    // the process that owns the objects
	Running string // the command running now; "" when idle

	byID   tree[uint64, *Object]
	byName tree[string, *Object]
}

// Len is how many objects the session has.
func (s State) Len() int { return s.byID.len() }

// Objects yields the session's objects in creation order.
func (s State) Objects() iter.Seq[Object] {
	return func(yield func(Object) bool) {
		for o := range s.byID.all() {
			if !yield(*o) {
				return
			}
		}
	}
}

// Object finds an object by the name the session gives it now.
func (s State) Object(name string) (Object, bool) {
	o, ok := s.byName.get(name)
	if !ok {
		return Object{}, false
	}
	return *o, true
}

// Put returns the State with o added, or in place of the object with its
// ID (under its new name, if it was renamed). s itself does not change.
func (s State) Put(o Object) State {
	if old, ok := s.byID.get(o.ID); ok && old.Name != o.Name {
		s = s.dropName(old)
	}
	s.byID, s.byName = s.byID.set(o.ID, &o), s.byName.set(o.Name, &o)
	return s
}

// Remove returns the State without the object with this ID. s itself does
// not change.
func (s State) Remove(id uint64) State {
	old, ok := s.byID.get(id)
	if !ok {
		return s
	}
	s = s.dropName(old)
	s.byID = s.byID.del(id)
	return s
}

// dropName removes o's name from the index, unless another object holds
// it by now.
func (s State) dropName(o *Object) State {
	if cur, ok := s.byName.get(o.Name); ok && cur.ID == o.ID {
		s.byName = s.byName.del(o.Name)
	}
	return s
}

// Object is one verbs object of the session, named as the shell names it.
type Object struct {
	ID     uint64    // the session's creation number: orders the objects and survives a rename
	Kind   rdma.Kind // ctx pd cq ch qp mr ah: the shared vocabulary's kinds (rdma.KindQP, …)
	Name   string    // qp1, mr2, …
	Parent string    // the object it was created under ("" for a ctx)
	Device string    // the device of its context
	Port   int       // the port it is bound to, once known (QPs, AHs)

	// QPs, as of the last command that used the QP (the kernel may move
	// a QP to ERR meanwhile: the inspector shows that).
	QPN    uint32
	QPType rdma.QPType
	// State is rdma.QPStateUnknown until the shell asked the QP.
	State          rdma.QPState
	SendCQ, RecvCQ string

	// CQs: the entries the device gave (at least those asked for).
	CQE int

	// MRs.
	Addr, Length uint64
	LKey, RKey   uint32
	Access       string

	History []Transition // QPs: successful modifies, oldest first
}

// Transition is one successful modify of a QP.
type Transition struct {
	At       time.Time
	From, To rdma.QPState
}

// Step says whether a modify to state To is legal now, which attributes
// it needs, and if not, why.
type Step struct {
	To    rdma.QPState
	Legal bool
	Needs []string // attributes the kernel requires for this step
	Why   string   // when not legal: the reason, in words
}

// NextSteps judges a modify of a QP from its State to every state with
// the kernel's rules: the transition's required attributes, and for an
// illegal one the checker's reason. It is nil for other objects and for
// a QP whose state is unknown. It is computed when asked (a pane asks
// for the QP it shows), not with every snapshot.
func (o Object) NextSteps() []Step {
	cur, typ := o.State, o.QPType
	if o.Kind != rdma.KindQP || cur == rdma.QPStateUnknown {
		return nil
	}
	var out []Step
	for _, to := range rdma.QPStates {
		rule := rdma.LookupTransition(cur, to, typ)
		v := rdma.Check(cur, to, typ, rdma.AttrState|rule.Required, nil, nil)
		st := Step{To: to, Legal: v.Known && v.TableOK}
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
