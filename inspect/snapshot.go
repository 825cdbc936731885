package inspect

import (
	"context"
	"errors"
	"time"

	"github.com/verbscope/verbscope/view"
)

// Snapshot is everything nldev knows at one moment: what `rdma dev`,
// `rdma link`, `rdma resource show` (all object kinds), `rdma statistic`
// and `rdma system` show together, for every process.
//
// Readings share objects, and say so: whoever makes a Snapshot (a
// Watcher, a recording's Player) may hand a kind's slice of the last
// reading over when the kind did not change (an idle host's 10,000 QPs
// are neither copied nor looked at again), and marks every kind with a
// generation (Generation): a new one when it made or edited the kind's
// slice (MarkChanged), the last reading's when it handed the slice over
// (Reuse). A reader keeps the generations it last derived something
// from and compares them with the next reading's: the same generation
// means the same contents, so an idle host's readings cost its readers
// nothing. Slices are shared between readings and readers, so nobody
// writes a delivered Snapshot's slices: the edit would reach every
// reading that shares them, under generations that say nothing changed.
// Generation 0 is unmarked (a Snapshot built field by field): never the
// same as any other, its readers look at it whole.
type Snapshot struct {
	// Time is when the snapshot was started; Took how long it took.
	Time time.Time
	Took time.Duration

	Devices []Device
	Ports   []Port
	Summary []Summary

	QPs      []QP
	CQs      []CQ
	MRs      []MR
	PDs      []PD
	Contexts []Context
	SRQs     []SRQ
	CMIDs    []CMID

	// PortCounters are the ports' hardware counters (shared by every QP
	// of the port, so no evidence that one QP is stuck).
	PortCounters []PortCounters
	// CounterModes and QPCounters are the per-QP counter setup and
	// values (none on soft devices).
	CounterModes []PortCounterMode
	QPCounters   []QPCounter
	System       System

	// Warnings lists the parts that failed without failing the whole
	// snapshot: one odd device or an unsupported request never hides
	// the rest.
	Warnings []error

	// gen is each object kind's generation, in resourceKinds' order.
	gen Generations
}

// Each calls fn for every object of the snapshot with its kind and the
// number `rdma resource show` keys it by (lqpn, cqn, mrn, pdn, ctxn, srqn,
// cm_idn: rdma-resource(8)), kind by kind in that order.
func (s *Snapshot) Each(fn func(k Kind, o *Object, id uint32)) {
	s.EachObject(func(k Kind, o *Object, id uint32, _ Rowed) { fn(k, o, id) })
}

// Shows reports whether the snapshot shows device dev: in its device
// list (RDMA_NLDEV_CMD_GET's dump) or as a QP's. A device it does not
// show is gone (rdma link delete, a driver unloaded), unless the
// snapshot failed in part (Warnings).
func (s *Snapshot) Shows() func(dev string) bool {
	live := map[string]bool{}
	for _, d := range s.Devices {
		live[d.Name] = true
	}
	// The QPs' devices only when asked of one the list leaves out: a
	// look at every QP each reading (10,000 idle ones) for a question
	// the device list answers.
	qpDevs := false
	return func(dev string) bool {
		if !live[dev] && !qpDevs {
			qpDevs = true
			for i := range s.QPs {
				live[s.QPs[i].DevName] = true
			}
		}
		return live[dev]
	}
}

// SameObjects reports whether s and o hold the same objects of every
// kind: their generations say so (Generations.Same). Readers that derive
// something from every object (the dashboard's rows) keep what they
// derived; equal but separately read objects are not the same.
func (s *Snapshot) SameObjects(o *Snapshot) bool {
	return s.Generations().Same(o.Generations())
}

// keepEqual hands s prev's objects of every kind that s read again
// equal (a whole dump of an idle host), with their generation: readers
// then see the same objects (SameObjects) and skip the work an idle
// reading does not need, after a whole dump as after a reading built
// from trace's events.
func (s *Snapshot) keepEqual(prev *Snapshot) {
	if prev == nil {
		return
	}
	for _, rk := range resourceKinds {
		if rk.equal(s, prev) {
			s.Reuse(rk.kind, prev)
		}
	}
}

// Rowed is an object that prints as a line of `rdma resource show`
// (*QP, *CQ, *MR, *PD, *Context, *SRQ, *CMID).
type Rowed interface{ Row(driver bool) view.Row }

// EachObject is Each with the object itself, whose Row prints it.
func (s *Snapshot) EachObject(fn func(k Kind, o *Object, id uint32, x Rowed)) {
	for _, rk := range resourceKinds {
		rk.each(s, fn)
	}
}

// Reserve makes s's objects of kind k anew, none yet, with room for n:
// a reader that knows how many it will Append saves the copies growing
// the slice by appends would make.
func (s *Snapshot) Reserve(k Kind, n int) {
	if rk := kindOfKind(k); rk != nil {
		rk.reserve(s, n)
	}
}

// Append appends a copy of x, an object as EachObject hands it (a *QP,
// *CQ, ...), to its kind's objects in s, and reports false for anything
// else: how a recording's reader puts a Snapshot together again.
func (s *Snapshot) Append(x Rowed) bool {
	for _, rk := range resourceKinds {
		if rk.add(s, x) {
			return true
		}
	}
	return false
}

// SnapshotOptions selects what Snapshot reads.
type SnapshotOptions struct {
	// Query limits the device (and QP/CM_ID port) and asks for driver
	// details.
	Query Query
	// NoCounters skips the STAT_GET requests (port counters, counter
	// modes, per-QP counters).
	NoCounters bool
}

// Snapshot takes every dump in one go: devices, ports, the summary, all
// object kinds, counters and system settings. The device list is read
// once; the comm name of a process is read once. An error in a part that
// a device may legitimately lack is recorded in Warnings; other errors
// (no RDMA netlink at all, a malformed reply) fail the call.
//
// ctx bounds every request: its deadline is the socket's, and cancelling
// it (or closing c) interrupts a dump in progress, so the call returns
// promptly with an error that wraps ctx.Err() (or ErrClosed).
func (c *Conn) Snapshot(ctx context.Context, opts SnapshotOptions) (*Snapshot, error) {
	return c.snapshot(ctx, opts, nil)
}

// snapshot is Snapshot without the dumps of the kinds skip names (their
// slices stay empty and unmarked); every kind it dumps has a new
// generation.
func (c *Conn) snapshot(ctx context.Context, opts SnapshotOptions, skip map[Kind]bool) (*Snapshot, error) {
	s := &Snapshot{Time: time.Now()}
	defer func() { s.Took = time.Since(s.Time) }()
	all, err := c.devices(ctx)
	if err != nil {
		return nil, err
	}
	devs, err := selectDevices("snapshot", all, opts.Query.Dev)
	if err != nil {
		return nil, err
	}
	s.Devices = devs
	cc := c.freshComm()
	q := opts.Query

	// soft turns errors a device may legitimately return into warnings.
	soft := func(err error) error {
		if err == nil || errors.Is(err, ErrMalformed) || errors.Is(err, ErrNoRDMA) || errors.Is(err, ErrClosed) ||
			errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		s.Warnings = append(s.Warnings, err)
		return nil
	}
	for _, d := range devs {
		if s.Ports, err = c.ports(ctx, d, s.Ports); soft(err) != nil {
			return nil, err
		}
		var steps []func() error
		for _, rk := range resourceKinds {
			if !skip[rk.kind] {
				steps = append(steps, func() error { return rk.dumpDev(ctx, c, d, q, cc, s) })
			}
		}
		if !opts.NoCounters {
			steps = append(steps, func() error {
				for p := uint32(1); p <= d.Ports; p++ {
					pc, err := c.portCounters(ctx, d, p)
					if noCounters(err) {
						continue
					}
					if err != nil {
						return err
					}
					s.PortCounters = append(s.PortCounters, pc)
				}
				return nil
			}, func() (err error) {
				s.CounterModes, err = c.counterModes(ctx, d, s.CounterModes)
				return
			}, func() (err error) {
				s.QPCounters, err = c.qpCounters(ctx, d, q, cc, s.QPCounters)
				return
			})
		}
		for _, step := range steps {
			if err := soft(step()); err != nil {
				return nil, err
			}
		}
	}
	if s.Summary, err = c.summary(ctx, opts.Query.Dev); soft(err) != nil {
		return nil, err
	}
	if s.System, err = c.system(ctx); soft(err) != nil {
		return nil, err
	}
	for _, rk := range resourceKinds {
		if !skip[rk.kind] {
			s.MarkChanged(rk.kind)
		}
	}
	return s, nil
}
