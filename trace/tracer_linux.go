package trace

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"golang.org/x/sys/unix"
)

// Tracer reads the kernel's RDMA control path events. Open it, call Read
// in one goroutine, and Close it (which ends Read with ErrClosed).
type Tracer struct {
	opts   Options
	spec   *ebpf.CollectionSpec
	shared map[string]*ebpf.Map
	rd     records
	boot   time.Time
	book   *book
	self   int
	// mu guards what the module watcher changes: the attached programs
	// and the ones left out.
	mu    sync.Mutex
	colls []*ebpf.Collection
	links []link.Link
	hooks []Hook
	left  []leftOut
	// stopWatch ends the module watcher, which closes watchDone.
	stopWatch, watchDone chan struct{}
	close                sync.Once
	closeErr             error
	rec                  ringbuf.Record // reused by Read
	// closed and lostAtClose keep Lost's answer once the maps are gone;
	// lostMu keeps Close from freeing the maps under a Lost that read
	// closed as false.
	lostMu      sync.RWMutex
	closed      atomic.Bool
	lostAtClose uint64
	// undecoded counts the records Read skipped (Undecoded).
	undecoded atomic.Uint64
	// drainMu lets one drain at a time wait; drains are its channels,
	// closed by Read at the ring buffer's flush (drain_linux.go).
	drainMu sync.Mutex
	flushMu sync.Mutex
	drains  []chan struct{}
}

// records is the ring buffer as Read uses it (*ringbuf.Reader); tests
// give Read records of their own.
type records interface {
	SetDeadline(time.Time)
	ReadInto(*ringbuf.Record) error
	Flush() error
	Close() error
}

// attempt is one program to attach: its name, its kernel function and
// uverbs_ret's handler_id (-1 for another program, -2 for an alsoOn
// target).
type attempt struct {
	name, target string
	handler      int
}

// leftOut is a program that did not attach, and why; missing means its
// function was not found (its module may load later). An alsoOn target
// has no warning.
type leftOut struct {
	attempt
	warning string
	missing bool
}

// sharedMaps are the maps every program writes into.
var sharedMaps = []string{"events", "destroying", "core_failed", "modifying", "blank", "lost", "mr_access"}

// Open loads the BPF programs and attaches each to its kernel function
// (fentry/fexit, resolved in the running kernel's BTF and its modules').
// A program whose target this kernel lacks is left out, and Warnings
// says so; Open fails only when none attaches, or BPF itself is not
// available (no BTF, no privileges: CAP_BPF and CAP_PERFMON, or root).
func Open(opts Options) (*Tracer, error) {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return nil, fmt.Errorf("trace: open: this kernel has no BTF (/sys/kernel/btf/vmlinux: %w); trace needs CONFIG_DEBUG_INFO_BTF=y, and CONFIG_DEBUG_INFO_BTF_MODULES=y for ib_core's functions: %w", err, ErrUnavailable)
	}
	// Kernels before 5.11 charge BPF memory to RLIMIT_MEMLOCK.
	if err := raiseMemlock(); err != nil && !errors.Is(err, unix.EPERM) {
		return nil, fmt.Errorf("trace: open: raising RLIMIT_MEMLOCK: %w", err)
	}
	spec, err := loadTracer()
	if err != nil {
		return nil, fmt.Errorf("trace: open: the embedded BPF object: %w", err)
	}
	if opts.Groups == 0 {
		opts.Groups = GroupAll
	}
	t := &Tracer{opts: opts, spec: spec, shared: map[string]*ebpf.Map{}, book: newBook(opts.Env), self: os.Getpid()}
	for _, name := range sharedMaps {
		m, err := ebpf.NewMap(spec.Maps[name])
		if err != nil {
			t.Close()
			return nil, privileged("creating the "+name+" map", err)
		}
		t.shared[name] = m
	}
	t.attachAll()
	if len(t.hooks) == 0 && !t.anyMissing() {
		err := fmt.Errorf("trace: open: no program attached: %v", t.Warnings())
		t.Close()
		return nil, err
	}
	rd, err := ringbuf.NewReader(t.shared["events"])
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("trace: open: ring buffer: %w", err)
	}
	t.rd = rd
	t.boot = bootTime()
	if t.anyMissing() {
		t.stopWatch, t.watchDone = make(chan struct{}), make(chan struct{})
		go t.watchModules(time.Second)
	}
	return t, nil
}

// attachAll loads and attaches every program of the chosen groups on
// its own, so that one missing target leaves only its program out.
func (t *Tracer) attachAll() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.attachEach(plan(t.spec, t.opts))
}

// plan lists the attachments opts asks for, in a stable order:
// reg_user_mr once per driver (silently left out where the driver is
// absent), uverbs_ret once per command handler.
func plan(spec *ebpf.CollectionSpec, opts Options) []attempt {
	var all []attempt
	names := make([]string, 0, len(spec.Programs))
	for n := range spec.Programs {
		if n != "uverbs_ret" && n != "reg_user_mr" && opts.Groups&programGroups[n] != 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		target := spec.Programs[n].AttachTo
		if r, ok := opts.Targets[n]; ok {
			target = r
		}
		all = append(all, attempt{n, target, -1})
		for _, fn := range alsoOn[n] {
			all = append(all, attempt{n, fn, -2})
		}
	}
	if opts.Groups&programGroups["reg_user_mr"] != 0 {
		for _, fn := range driverRegMR {
			all = append(all, attempt{"reg_user_mr", fn, -2})
		}
	}
	if opts.Groups&GroupUverbs != 0 {
		for i, h := range uverbsHandlers {
			all = append(all, attempt{"uverbs_ret", h.fn, i})
		}
	}
	return all
}

// attachEach tries each attempt with one BTF cache (a fresh one sees the
// modules loaded since) and keeps those that fail in t.left; it returns
// how many attached. t.mu is held.
func (t *Tracer) attachEach(all []attempt) int {
	cache := btf.NewCache()
	n := 0
	for _, a := range all {
		err := t.attach(cache, a)
		if err == nil {
			n++
			continue
		}
		l := leftOut{attempt: a, missing: errors.Is(err, os.ErrNotExist) || errors.Is(err, btf.ErrNotFound) || errors.Is(err, ebpf.ErrNotSupported)}
		if a.handler != -2 {
			why := err.Error()
			if l.missing {
				why = "this kernel has no such function (or its module is not loaded)"
			}
			l.warning = fmt.Sprintf("trace: %s on %s left out: %s", a.name, a.target, why)
		}
		t.left = append(t.left, l)
	}
	return n
}

// alsoOn are more functions a program serves, where the kernel has them:
// Debian's 6.1 (like mainline since 6.2) frees PDs, CQs, QPs and SRQs with
// rdma_restrack_begin_del and rdma_restrack_commit_del, and only the other
// objects with rdma_restrack_del. Their absence is no warning.
var alsoOn = map[string][]string{"restrack_del": {"rdma_restrack_commit_del"}}

// attach loads program a.name alone, aimed at a.target, and links it.
// t.mu is held.
func (t *Tracer) attach(cache *btf.Cache, a attempt) error {
	one := t.spec.Copy()
	ps := one.Programs[a.name]
	ps.AttachTo = a.target
	one.Programs = map[string]*ebpf.ProgramSpec{a.name: ps}
	if a.handler >= 0 {
		if err := one.Variables["handler_id"].Set(uint32(a.handler)); err != nil {
			return err
		}
	}
	coll, err := ebpf.NewCollectionWithOptions(one, ebpf.CollectionOptions{MapReplacements: t.shared, Cache: cache})
	if err != nil {
		return err
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: coll.Programs[a.name]})
	if err != nil {
		coll.Close()
		return err
	}
	t.colls = append(t.colls, coll)
	t.links = append(t.links, l)
	t.hooks = append(t.hooks, Hook{Program: a.name, Target: a.target})
	return nil
}

// anyMissing reports whether a program waits for its function to appear.
func (t *Tracer) anyMissing() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, l := range t.left {
		if l.missing {
			return true
		}
	}
	return false
}

// privileged explains a BPF failure that is most likely missing rights.
func privileged(what string, err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("trace: open: %s: %w: loading BPF programs needs CAP_BPF and CAP_PERFMON (or root); run verbscope trace as root", what, err)
	}
	return fmt.Errorf("trace: open: %s: %w", what, err)
}

// Hooks lists the attached programs and their targets.
func (t *Tracer) Hooks() []Hook {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.hooks)
}

// Warnings lists the programs left out, each with its reason (those
// attached since, when their module loaded, no longer).
func (t *Tracer) Warnings() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var w []string
	for _, l := range t.left {
		if l.warning != "" {
			w = append(w, l.warning)
		}
	}
	return w
}

// Read blocks until the next event that passes the filter. It ends only
// when the tracer is closed, with ErrClosed: a record that fails to
// decode (a BPF object and a binary that disagree) or a ring buffer that
// fails to read is counted (Undecoded) and skipped, and a Record writer
// that fails is dropped (Notify hears why), so that one bad record does
// not end tracing for the life of the process.
func (t *Tracer) Read() (Event, error) {
	for {
		// The BPF side wakes the reader only for a full batch
		// (WAKEUP_BYTES): the deadline collects the rest.
		t.rd.SetDeadline(time.Now().Add(t.opts.latency()))
		err := t.rd.ReadInto(&t.rec)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			continue
		}
		if errors.Is(err, ringbuf.ErrFlushed) {
			t.flushed() // every record before the flush was returned
			continue
		}
		if errors.Is(err, ringbuf.ErrClosed) || errors.Is(err, os.ErrClosed) || t.closed.Load() {
			return Event{}, ErrClosed
		}
		if err != nil {
			// Not a record: pause for the look interval, so that a
			// ring buffer that keeps failing cannot spin.
			t.skip(fmt.Errorf("trace: read: %w", err))
			time.Sleep(t.opts.latency())
			continue
		}
		if e, ok := t.event(t.rec.RawSample); ok {
			return e, nil
		}
	}
}

// event decodes one record, notes it in the book and filters it; false
// for a record that is skipped (undecodable, ours, filtered out).
func (t *Tracer) event(raw []byte) (Event, bool) {
	if t.opts.Record != nil {
		if _, err := fmt.Fprintf(t.opts.Record, "%x\n", raw); err != nil {
			t.opts.Record = nil
			t.notify(fmt.Sprintf("recording stopped: %v; tracing goes on", err))
		}
	}
	e, err := decode(raw, t.boot)
	if err != nil {
		t.skip(err)
		return Event{}, false
	}
	if e.PID == t.self && !t.opts.Self {
		return Event{}, false
	}
	t.book.note(&e)
	return e, t.opts.Filter.match(&e)
}

// skip counts a record Read could not use; Notify hears the first such
// error (the rest are counted: a mismatched object fails every record).
func (t *Tracer) skip(err error) {
	if t.undecoded.Add(1) == 1 {
		t.notify(fmt.Sprintf("a record was skipped (%v); later ones that fail are counted, not told", err))
	}
}

func (t *Tracer) notify(msg string) {
	if t.opts.Notify != nil {
		t.opts.Notify(msg)
	}
}

// Undecoded is the number of ring buffer records Read skipped because
// they did not decode (or the ring buffer failed to read): events lost
// on this side, beside the kernel's (Lost).
func (t *Tracer) Undecoded() uint64 { return t.undecoded.Load() }

// readBatchWait is how late an event may be read unless Options.Latency
// says: the most Read waits for the kernel's wake-up, which comes only
// for a batch.
const readBatchWait = 100 * time.Millisecond

func (o *Options) latency() time.Duration {
	if o.Latency > 0 {
		return o.Latency
	}
	return readBatchWait
}

// Lost is the number of events the kernel dropped because the ring
// buffer was full: the reader fell behind (1 MiB holds about 3,000).
// After Close it is the count at Close.
func (t *Tracer) Lost() (uint64, error) {
	t.lostMu.RLock()
	defer t.lostMu.RUnlock()
	if t.closed.Load() {
		return t.lostAtClose, nil
	}
	return t.lostNow()
}

func (t *Tracer) lostNow() (uint64, error) {
	var perCPU []uint64
	if err := t.shared["lost"].Lookup(uint32(0), &perCPU); err != nil {
		return 0, fmt.Errorf("trace: lost: %w", err)
	}
	var n uint64
	for _, v := range perCPU {
		n += v
	}
	return n, nil
}

// Close detaches every program and frees the maps, ending a Read in
// progress; it is idempotent and safe to call while Read runs.
func (t *Tracer) Close() error {
	t.close.Do(func() {
		if t.stopWatch != nil {
			close(t.stopWatch)
			<-t.watchDone
		}
		t.lostMu.Lock()
		t.lostAtClose, _ = t.lostNow()
		t.closed.Store(true)
		t.lostMu.Unlock()
		var errs []error
		if t.rd != nil {
			errs = append(errs, t.rd.Close())
		}
		for _, l := range t.links {
			errs = append(errs, l.Close())
		}
		for _, c := range t.colls {
			c.Close()
		}
		for _, m := range t.shared {
			errs = append(errs, m.Close())
		}
		t.closeErr = errors.Join(errs...)
	})
	return t.closeErr
}

// bootTime is the wall time at which CLOCK_MONOTONIC, bpf_ktime_get_ns's
// clock, was zero.
func bootTime() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return time.Now()
	}
	return time.Now().Add(-time.Duration(ts.Nano()))
}
