package shell

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// kind is the type of a named object in the session: the shared
// vocabulary's object kinds (rdma.Kind).
type kind = rdma.Kind

// entry is one named object of the session.
type entry struct {
	name    string
	kind    kind
	parent  *entry // ctx for pd/cq/ch; pd for qp/mr
	created time.Time

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

// closed asks the library whether the object is gone (a cascade may have
// taken it).
func (e *entry) closed() bool {
	switch e.kind {
	case rdma.KindCtx:
		return e.ctx.Closed()
	case rdma.KindPD:
		return e.pd.Closed()
	case rdma.KindCQ:
		return e.cq.Closed()
	case rdma.KindChannel:
		return e.ch.Closed()
	case rdma.KindQP:
		return e.qp.Closed()
	case rdma.KindMR:
		return e.mr.Closed()
	case rdma.KindAH:
		return e.ah.Closed()
	}
	return true
}

// Shell is one verbs shell session: the named objects, the defaults, and
// the commands. It has no terminal code: front ends feed it lines and
// show its Results (it is a front.Engine). Close destroys everything it
// created.
//
// Locking: run serializes commands; mu guards the objects and is held
// while a command works, but released while it waits on the network or
// the device (unlocked), so Complete answers meanwhile. State reads an
// atomic snapshot and takes no lock at all.
type Shell struct {
	run      sync.Mutex // one command at a time, and Close after it
	mu       sync.Mutex
	objs     map[string]*entry
	counters map[kind]int
	opts     Options
	wrid     uint64               // the last work request id handed out
	posted   map[uint64]postedWR  // outstanding WRs by id, to show completions
	clock    time.Time            // the stopwatch's start
	remote   map[string]remoteMR  // peers' MRs by "peer.NAME", from announcements
	scratch  map[*entry]*verbs.MR // per PD: the shell's own buffer for announcements
	watched  map[*verbs.Context]bool
	closed   bool

	// cancel stops the running command (Close calls it); guarded by
	// cancelMu, not mu, so Close reaches it while the command holds mu.
	cancelMu sync.Mutex
	cancel   context.CancelFunc

	state atomic.Pointer[front.State]
	names atomic.Pointer[eventNames]
	seq   atomic.Uint64

	evMu     sync.Mutex
	events   []eventRecord // async events seen so far
	unseen   []eventRecord // of those, the ones no result has shown yet
	watchers sync.WaitGroup

	emitMu       sync.Mutex
	eventCh      chan front.Event
	eventsClosed bool
}

var _ front.Engine = (*Shell)(nil)

// eventRecord is one async event as the session saw it.
type eventRecord struct {
	at   time.Time
	ev   verbs.AsyncEvent
	text string // with the session's names, e.g. "QP_ACCESS_ERR on qp2"
}

// Options configure a session.
type Options struct {
	// Device is what `open` opens when no name is given; empty means the
	// first device the library lists.
	Device string
	// GIDIndex is the source GID index of RoCE address vectors when a
	// command names none; 0 picks the port's RoCE v2 GID of an IPv4
	// address (index 0 itself can always be named: sgid_index=0).
	GIDIndex int
	// Resolver looks up, before a modify with an address vector, how the
	// kernel will resolve its DGID (route and neighbour); nil is
	// netpath.Resolver, over this host's rtnetlink.
	Resolver rdma.AVResolver
}

// New starts an empty session.
func New(opts Options) *Shell {
	s := &Shell{objs: map[string]*entry{}, counters: map[kind]int{}, opts: opts, posted: map[uint64]postedWR{},
		remote: map[string]remoteMR{}, scratch: map[*entry]*verbs.MR{}, watched: map[*verbs.Context]bool{},
		eventCh: make(chan front.Event, eventBuffer)}
	s.publish("")
	return s
}

// Close destroys every object of the session in dependency order (QPs
// first, contexts last) and forgets them; a running command is cancelled
// first. It closes the Events channel. It is safe to call twice.
func (s *Shell) Close() error {
	s.cancelMu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.cancelMu.Unlock()
	s.run.Lock()
	defer s.run.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, e := range s.sorted() {
		if e.kind == rdma.KindCtx {
			if err := e.ctx.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	s.objs = map[string]*entry{}
	s.publish("")
	// Closing the contexts closed their event channels: the watchers end.
	s.watchers.Wait()
	s.emitMu.Lock()
	s.eventsClosed = true
	close(s.eventCh)
	s.emitMu.Unlock()
	if len(errs) > 0 {
		return &Error{What: "shell: closing the session failed", Why: errors.Join(errs...).Error(),
			Fix: "the kernel frees what is left when the process exits", Err: errors.Join(errs...)}
	}
	return nil
}

// add names a new object: qp1, qp2, … unless the user chose a name.
func (s *Shell) add(e *entry, as string) (*entry, error) {
	if as == "" {
		for {
			s.counters[e.kind]++
			as = fmt.Sprintf("%s%d", e.kind, s.counters[e.kind])
			if s.objs[as] == nil {
				break
			}
		}
	} else if err := s.checkNewName(as); err != nil {
		return nil, err
	}
	e.name, e.created = as, time.Now()
	s.objs[as] = e
	return e, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

func (s *Shell) checkNewName(name string) error {
	if !nameRE.MatchString(name) {
		return &Error{What: fmt.Sprintf("%q cannot be a name", name), Fix: "use letters, digits, _ . or -, starting with a letter"}
	}
	if s.objs[name] != nil {
		return &Error{What: name + " is already taken", Fix: "pick another name, or rename the other object first"}
	}
	if lookupCommand(name) != nil {
		return &Error{What: name + " is a command name", Fix: "pick a name that is not a command"}
	}
	return nil
}

// prune forgets objects the library destroyed (directly or by cascade).
func (s *Shell) prune() []string {
	var gone []string
	for name, e := range s.objs {
		if e.closed() {
			gone = append(gone, name)
			delete(s.objs, name)
		}
	}
	sort.Strings(gone)
	return gone
}

// get resolves a name to an object of one of the wanted kinds.
func (s *Shell) get(name string, want ...kind) (*entry, error) {
	e := s.objs[name]
	if e == nil {
		return nil, s.noSuch(name, want...)
	}
	if len(want) > 0 {
		for _, k := range want {
			if e.kind == k {
				return e, nil
			}
		}
		var ws []string
		for _, k := range want {
			ws = append(ws, "a "+k.Word()+" ("+string(k)+"N)")
		}
		return nil, &Error{What: fmt.Sprintf("%s is a %s, but this needs %s", name, e.kind.Word(), strings.Join(ws, " or "))}
	}
	return e, nil
}

func (s *Shell) noSuch(name string, want ...kind) error {
	var have []string
	for n, e := range s.objs {
		if len(want) == 0 || contains(want, e.kind) {
			have = append(have, n)
		}
	}
	sort.Strings(have)
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
	var found *entry
	for _, e := range s.objs {
		if e.kind == k {
			if found != nil {
				return nil, &Error{What: "there are several " + k.Word() + "s", Fix: "name the one you mean"}
			}
			found = e
		}
	}
	if found == nil {
		return nil, &Error{What: "there is no " + k.Word() + " yet", Fix: "create one first: " + createHint[k]}
	}
	return found, nil
}

// sorted lists the objects in creation order.
func (s *Shell) sorted() []*entry {
	out := make([]*entry, 0, len(s.objs))
	for _, e := range s.objs {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].created.Equal(out[j].created) {
			return out[i].created.Before(out[j].created)
		}
		return out[i].name < out[j].name
	})
	return out
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
