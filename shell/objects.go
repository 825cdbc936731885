package shell

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// kind is the type of a named object in the session: the shared
// vocabulary's object kinds (rdma.Kind).
type kind = rdma.Kind

// entry is one named object of the session.
type entry struct {
	name   string
	kind   kind
	id     uint64 // creation order in the session (front.Object.ID)
	parent *entry // ctx for pd/cq/ch; pd for qp/mr/ah

	// obj is the library's object, whichever its kind: what destroy
	// and closed need of it. The typed field beside it is the same
	// object, for what only its kind has.
	obj verbsObject
	ctx *verbs.Context
	pd  *verbs.PD
	cq  *verbs.CQ
	ch  *verbs.CompChannel
	qp  *verbs.QP
	mr  *verbs.MR
	ah  *verbs.AH

	// QP only: the CQs it uses, the transitions it went through, its
	// first send PSN and, once known, its peer.
	sendCQ, recvCQ *entry
	history        []transition
	psn            uint32
	peer           *rdma.Peer
}

// transition is one successful modify of a QP, for `show` and diagrams.
type transition struct {
	At       time.Time
	From, To verbs.QPState
	Mask     verbs.QPAttrMask
}

// verbsObject is what every verbs object of the session has: Close
// destroys it after what uses it (verbs' cascade), Closed tells it is
// gone. Most also have a bare Destroy (destroyer).
type verbsObject interface {
	Close() error
	Closed() bool
}

// destroyer is a verbs object with a bare destroy: libibverbs' own
// ibv_destroy_*, which fails while something still uses the object.
type destroyer interface{ Destroy() error }

// closed asks the library whether the object is gone (a cascade may have
// taken it).
func (e *entry) closed() bool { return e.obj == nil || e.obj.Closed() }

// uses tells whether e depends on o: o is its parent or one of its CQs.
func (e *entry) uses(o *entry) bool { return e.parent == o || e.sendCQ == o || e.recvCQ == o }

// objects are the session's named objects, indexed the ways commands
// look them up, with the ones a command reached since the last snapshot
// (the only ones it can have changed). Every lookup and change goes
// through the methods below, so the indexes agree. The session lock
// guards it, except the library index.
type objects struct {
	byName   map[string]*entry
	byKind   map[kind]map[*entry]bool
	counters map[kind]int // for the next default name: qp1, qp2, …
	lastID   uint64
	touched  map[*entry]bool

	// The library names a QP by number and a CQ by pointer (in async
	// events and completions). The event watchers read this while a
	// command holds the session lock, so it has a lock of its own.
	libMu sync.RWMutex
	qpns  map[uint32]*entry
	cqs   map[*verbs.CQ]*entry
}

func newObjects() *objects {
	return &objects{byName: map[string]*entry{}, byKind: map[kind]map[*entry]bool{}, counters: map[kind]int{},
		touched: map[*entry]bool{}, qpns: map[uint32]*entry{}, cqs: map[*verbs.CQ]*entry{}}
}

// insert indexes a new entry under e.name.
func (o *objects) insert(e *entry) {
	o.lastID++
	e.id = o.lastID
	o.byName[e.name] = e
	if o.byKind[e.kind] == nil {
		o.byKind[e.kind] = map[*entry]bool{}
	}
	o.byKind[e.kind][e] = true
	o.libMu.Lock()
	switch e.kind {
	case rdma.KindQP:
		o.qpns[e.qp.Num()] = e
	case rdma.KindCQ:
		o.cqs[e.cq] = e
	}
	o.libMu.Unlock()
	o.touched[e] = true
}

// drop forgets an entry; the next snapshot leaves it out.
func (o *objects) drop(e *entry) {
	delete(o.byName, e.name)
	delete(o.byKind[e.kind], e)
	o.libMu.Lock()
	// The kernel may give a destroyed QP's number to a new QP.
	if e.kind == rdma.KindQP && o.qpns[e.qp.Num()] == e {
		delete(o.qpns, e.qp.Num())
	}
	if e.kind == rdma.KindCQ {
		delete(o.cqs, e.cq)
	}
	o.libMu.Unlock()
	o.touched[e] = true
}

// rename gives e a new name; what shows e's name (its children, the QPs
// using a CQ) is touched too.
func (o *objects) rename(e *entry, name string) {
	delete(o.byName, e.name)
	o.libMu.Lock() // the event watchers read e.name
	e.name = name
	o.libMu.Unlock()
	o.byName[name] = e
	o.touched[e] = true
	for _, x := range o.byName {
		if x.uses(e) {
			o.touched[x] = true
		}
	}
}

// sorted is every entry of a kind, in creation order.
func (o *objects) sorted(k kind) []*entry {
	out := make([]*entry, 0, len(o.byKind[k]))
	for e := range o.byKind[k] {
		out = append(out, e)
	}
	slices.SortFunc(out, byID)
	return out
}

// all is every entry, in creation order.
func (o *objects) all() []*entry {
	out := make([]*entry, 0, len(o.byName))
	for _, e := range o.byName {
		out = append(out, e)
	}
	slices.SortFunc(out, byID)
	return out
}

// eventName is the session's name for the QP or CQ an async event points
// at ("" when it is none of the session's), read without the session
// lock.
func (o *objects) eventName(ev verbs.AsyncEvent) (name string, qp bool) {
	o.libMu.RLock()
	defer o.libMu.RUnlock()
	if e := o.qpns[ev.QPNum]; e != nil && ev.QPNum != 0 {
		return e.name, true
	}
	if e := o.cqs[ev.CQ]; e != nil && ev.CQ != nil {
		return e.name, false
	}
	return "", false
}

// newName reads the name a command's as= gives its new object, checked
// before the object is created: "" for the next default name.
func (s *Shell) newName(a *args) (string, error) {
	as, ok := a.str("as")
	if !ok {
		return "", nil
	}
	return as, s.checkNewName(as)
}

// add names a new object: as (checked by newName), or else qp1, qp2, …
// A new context's async events are watched from now on.
func (s *Shell) add(e *entry, as string) *entry {
	for as == "" || s.objs.byName[as] != nil {
		s.objs.counters[e.kind]++
		as = fmt.Sprintf("%s%d", e.kind, s.objs.counters[e.kind])
	}
	e.name = as
	s.objs.insert(e)
	if e.kind == rdma.KindCtx {
		s.watchEvents(e.ctx)
	}
	return e
}

// Compiled at first use, not in every verbscope process at start.
var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`) })

func (s *Shell) checkNewName(name string) error {
	if !nameRE().MatchString(name) {
		return &Error{What: fmt.Sprintf("%q cannot be a name", name), Fix: "use letters, digits, _ . or -, starting with a letter"}
	}
	if s.objs.byName[name] != nil {
		return &Error{What: name + " is already taken", Fix: "pick another name, or rename the other object first"}
	}
	if lookupCommand(name) != nil {
		return &Error{What: name + " is a command name", Fix: "pick a name that is not a command"}
	}
	return nil
}

// prune forgets the objects among these that the library destroyed
// (directly or by cascade), and returns their names, sorted.
func (s *Shell) prune(among []*entry) []string {
	var gone []string
	for _, e := range among {
		if e.closed() {
			gone = append(gone, e.name)
			s.objs.drop(e)
			delete(s.scratch, e)
		}
	}
	slices.Sort(gone)
	return gone
}

// touch marks an entry the command reached: the next snapshot describes
// it again. A command can change only what it reached.
func (s *Shell) touch(e *entry) *entry {
	s.objs.touched[e] = true
	return e
}

// get resolves a name to an object of one of the wanted kinds.
func (s *Shell) get(name string, want ...kind) (*entry, error) {
	e := s.objs.byName[name]
	if e == nil {
		return nil, s.noSuch(name, want...)
	}
	if len(want) > 0 && !contains(want, e.kind) {
		var ws []string
		for _, k := range want {
			ws = append(ws, "a "+k.Word()+" ("+string(k)+"N)")
		}
		return nil, &Error{What: fmt.Sprintf("%s is a %s, but this needs %s", name, e.kind.Word(), strings.Join(ws, " or "))}
	}
	return s.touch(e), nil
}

func (s *Shell) noSuch(name string, want ...kind) error {
	var have []string
	for n, e := range s.objs.byName {
		if len(want) == 0 || contains(want, e.kind) {
			have = append(have, n)
		}
	}
	slices.Sort(have)
	fix := "`ls` lists the objects of this session"
	if len(have) > 0 {
		fix = "existing: " + strings.Join(have, ", ") + suggest(name, have)
	} else if len(want) == 1 {
		fix = "create one first: " + createHint[want[0]]
	}
	return &Error{What: "there is no " + name, Fix: fix}
}

// createHint is the command that makes an object of each kind.
var createHint = map[kind]string{
	rdma.KindCtx: "open [DEVICE]", rdma.KindPD: "pd", rdma.KindCQ: "cq size=16", rdma.KindChannel: "channel",
	rdma.KindQP: "qp type=rc cq=cq1", rdma.KindMR: "mr size=4096 access=local_write,remote_write",
	rdma.KindAH: "ah dgid=GID",
}

// only returns the single object of a kind, for commands where it is the
// obvious default (the one context, the one PD).
func (s *Shell) only(k kind) (*entry, error) {
	switch of := s.objs.byKind[k]; len(of) {
	case 0:
		return nil, &Error{What: "there is no " + k.Word() + " yet", Fix: "create one first: " + createHint[k]}
	case 1:
		for e := range of {
			return s.touch(e), nil
		}
	}
	return nil, &Error{What: "there are several " + k.Word() + "s", Fix: "name the one you mean"}
}

// qpByNum finds the session's QP with a number (a loopback peer, the QP
// of a completion).
func (s *Shell) qpByNum(n uint32) *entry {
	s.objs.libMu.RLock()
	e := s.objs.qpns[n]
	s.objs.libMu.RUnlock()
	if e == nil {
		return nil
	}
	return s.touch(e)
}

func byID(a, b *entry) int { return cmp.Compare(a.id, b.id) }

func contains[T comparable](xs []T, x T) bool { return slices.Contains(xs, x) }
