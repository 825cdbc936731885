package shell

import (
	"context"
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// Shell is one verbs shell session: the named objects, the defaults, and
// the commands. It has no terminal code: front ends feed it lines and
// show its Results (it is a front.Engine). Close destroys everything it
// created.
//
// Locking: execMu lets one command run at a time (and Close after it);
// mu guards the objects and is held while a command works, but released
// while it waits on the network or the device (waitUnlocked), so Complete
// answers meanwhile. State reads an atomic snapshot and takes no lock at
// all; the event watchers find names in the objects' index, under its own
// lock.
type Shell struct {
	execMu  sync.Mutex // one command at a time, and Close after it
	mu      sync.Mutex
	objs    *objects
	opts    Options
	wrid    uint64               // the last work request id handed out
	posted  map[uint64]postedWR  // outstanding WRs by id, to show completions
	clock   time.Time            // the stopwatch's start
	remote  map[string]remoteMR  // peers' MRs by "peer.NAME", from announcements
	scratch map[*entry]*verbs.MR // per PD: the shell's own buffer for announcements
	closed  bool

	// cancel stops the running command (Close calls it); guarded by
	// cancelMu, not mu, so Close reaches it while the command holds mu.
	cancelMu sync.Mutex
	cancel   context.CancelFunc

	state atomic.Pointer[front.State]
	seq   atomic.Uint64
	// objectOf describes an entry for a snapshot: s.object, unless a
	// test counts what publishing describes.
	objectOf func(*entry) front.Object

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
	s := &Shell{objs: newObjects(), opts: opts, posted: map[uint64]postedWR{},
		remote: map[string]remoteMR{}, scratch: map[*entry]*verbs.MR{},
		eventCh: make(chan front.Event, eventBuffer)}
	s.objectOf = s.object
	s.state.Store(&front.State{Seq: s.seq.Add(1), PID: os.Getpid()})
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
	s.execMu.Lock()
	defer s.execMu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	for _, e := range s.objs.sorted(rdma.KindCtx) {
		if err := e.ctx.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	s.state.Store(&front.State{Seq: s.seq.Add(1), PID: os.Getpid()})
	// Closing the contexts closed their event channels: the watchers end.
	s.watchers.Wait()
	s.objs = newObjects()
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
