package verbs

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// rank orders destruction: libibverbs refuses to destroy an object that
// others still use (EBUSY), so a context tears down QPs first, then what
// QPs use, and so on. Lower ranks go first.
type rank int

const (
	rankQP rank = iota
	rankAH
	rankMW
	rankSRQ
	rankMR
	rankPD
	rankCQ
	rankChannel
)

// object is the bookkeeping every verbs object shares: what it depends
// on, what depends on it, and how to destroy it. The graph is guarded by
// its context's mutex; mu guards the object's own handle against a
// destroy racing a call (calls hold it for reading).
type object struct {
	kind    string // "QP", "CQ", ... for messages
	rank    rank
	seq     uint64 // creation order within the context
	ctx     *Context
	deps    []*object        // objects this one uses
	users   map[*object]bool // objects that use this one
	destroy func() error     // the single libibverbs destroy call
	name    string           // e.g. "QP 17 (RC)" or "CQ #3", for messages
	created []uintptr        // call stack at creation, for leak reports
	// data marks MRs, MWs and AHs: posts name them without locking
	// each, so destroying one also takes the context's dataMu.
	data bool

	mu     sync.RWMutex
	closed bool
}

// register adds a new object to c's graph, depending on deps. The object
// must not point back to its Go wrapper, or the leak tracker's cleanup
// could never run.
func (c *Context) register(o *object, deps ...*object) {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	c.seq++
	o.seq, o.ctx = c.seq, c
	if o.name == "" {
		o.name = fmt.Sprintf("%s #%d", o.kind, o.seq)
	}
	o.users = map[*object]bool{}
	for _, d := range deps {
		if d != nil {
			o.deps = append(o.deps, d)
			d.users[o] = true
		}
	}
	if trackLeaks.Load() {
		pcs := make([]uintptr, 16)
		o.created = pcs[:runtime.Callers(3, pcs)]
	}
	c.objects[o] = true
}

// closeObject destroys o after everything that uses o, the way a careful
// C program would. It is idempotent.
func (c *Context) closeObject(o *object) error {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	return c.closeLocked(o)
}

func (c *Context) closeLocked(o *object) error {
	o.mu.RLock()
	closed := o.closed
	o.mu.RUnlock()
	if closed {
		return nil
	}
	var errs []error
	for _, u := range sortedForTeardown(o.users) {
		if err := c.closeLocked(u); err != nil {
			errs = append(errs, err)
		}
	}
	if err := c.destroyLocked(o); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// destroyObject destroys o alone, as the single libibverbs call would:
// if other objects still use it, the library's EBUSY comes back, with a
// note naming them. This is what a C program sees, so the shell can teach it.
func (c *Context) destroyObject(o *object) error {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	o.mu.RLock()
	closed := o.closed
	o.mu.RUnlock()
	if closed {
		return &Error{Op: "destroy " + o.kind, Err: ErrClosed, Hint: o.name + " was already destroyed"}
	}
	err := c.destroyLocked(o)
	if err != nil && len(o.users) > 0 {
		var names []string
		for _, u := range sortedForTeardown(o.users) {
			names = append(names, u.name)
		}
		if e, ok := err.(*Error); ok {
			e.Hint = fmt.Sprintf("%s is still used by %s; destroy those first (Close does it for you)", o.name, strings.Join(names, ", "))
		}
	}
	return err
}

func (c *Context) destroyLocked(o *object) error {
	if o.data {
		c.dataMu.Lock()
		defer c.dataMu.Unlock()
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil
	}
	err := o.destroy()
	var gone *goneError
	if err != nil && !errors.As(err, &gone) {
		return err
	}
	o.closed = true
	for _, d := range o.deps {
		delete(d.users, o)
	}
	delete(c.objects, o)
	if gone != nil {
		return gone.err
	}
	return nil
}

// goneError is a destroy whose libibverbs call succeeded but whose
// clean-up after it failed (an MR deregistered, its munmap refused): the
// object is gone, so it is marked closed and never destroyed twice, and
// the error is still reported.
type goneError struct{ err error }

func (e *goneError) Error() string { return e.err.Error() }
func (e *goneError) Unwrap() error { return e.err }

// link records that user depends on dep after both exist (a memory
// window bound to an MR), so closing dep closes user first.
func (c *Context) link(user, dep *object) {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	if user.isClosed() || dep.isClosed() {
		return
	}
	for _, d := range user.deps {
		if d == dep {
			return
		}
	}
	user.deps = append(user.deps, dep)
	dep.users[user] = true
}

// closeAll tears down every object of the context in rank order.
func (c *Context) closeAll() error {
	c.graphMu.Lock()
	defer c.graphMu.Unlock()
	var errs []error
	for _, o := range sortedForTeardown(c.objects) {
		if err := c.closeLocked(o); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// sortedForTeardown orders objects by rank, newest first within a rank.
func sortedForTeardown(set map[*object]bool) []*object {
	out := make([]*object, 0, len(set))
	for o := range set {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].rank != out[j].rank {
			return out[i].rank < out[j].rank
		}
		return out[i].seq > out[j].seq
	})
	return out
}

// isClosed reports whether the object was destroyed (directly or by a
// cascade from something it used).
func (o *object) isClosed() bool {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.closed
}

// use runs fn with o's handle held against a concurrent destroy.
func (o *object) use(op string, fn func() error) error {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.closed {
		return &Error{Op: op, Err: ErrClosed, Hint: o.name + " was destroyed"}
	}
	return fn()
}
