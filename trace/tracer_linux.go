package trace

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// Tracer reads the kernel's RDMA control path events. Open it, call Read
// in one goroutine, and Close it (which ends Read with ErrClosed).
type Tracer struct {
	opts     Options
	shared   map[string]*ebpf.Map
	colls    []*ebpf.Collection
	links    []link.Link
	rd       *ringbuf.Reader
	boot     time.Time
	book     *book
	self     int
	hooks    []Hook
	warnings []string
	close    sync.Once
	closeErr error
	rec      ringbuf.Record // reused by Read
	// closed and lostAtClose keep Lost's answer once the maps are gone.
	closed      atomic.Bool
	lostAtClose uint64
}

// sharedMaps are the maps every program writes into.
var sharedMaps = []string{"events", "destroying", "core_failed", "modifying", "blank", "lost"}

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
	if err := rlimit.RemoveMemlock(); err != nil && !errors.Is(err, unix.EPERM) {
		return nil, fmt.Errorf("trace: open: raising RLIMIT_MEMLOCK: %w", err)
	}
	spec, err := loadTracer()
	if err != nil {
		return nil, fmt.Errorf("trace: open: the embedded BPF object: %w", err)
	}
	t := &Tracer{opts: opts, shared: map[string]*ebpf.Map{}, book: newBook(opts.Env), self: os.Getpid()}
	for _, name := range sharedMaps {
		m, err := ebpf.NewMap(spec.Maps[name])
		if err != nil {
			t.Close()
			return nil, privileged("creating the "+name+" map", err)
		}
		t.shared[name] = m
	}
	t.attachAll(spec)
	if len(t.hooks) == 0 {
		err := fmt.Errorf("trace: open: no program attached: %v", t.warnings)
		t.Close()
		return nil, err
	}
	if t.rd, err = ringbuf.NewReader(t.shared["events"]); err != nil {
		t.Close()
		return nil, fmt.Errorf("trace: open: ring buffer: %w", err)
	}
	t.boot = bootTime()
	return t, nil
}

// attachAll loads and attaches every program on its own, so that one
// missing target leaves only its program out. uverbs_ret is attached once
// per command handler.
func (t *Tracer) attachAll(spec *ebpf.CollectionSpec) {
	cache := btf.NewCache()
	names := make([]string, 0, len(spec.Programs))
	for n := range spec.Programs {
		if n != "uverbs_ret" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		t.attach(spec, cache, n, spec.Programs[n].AttachTo, -1)
		for _, fn := range alsoOn[n] {
			t.attach(spec, cache, n, fn, -2)
		}
	}
	for i, h := range uverbsHandlers {
		t.attach(spec, cache, "uverbs_ret", h.fn, i)
	}
}

// alsoOn are more functions a program serves, where the kernel has them:
// Debian's 6.1 (like mainline since 6.2) frees PDs, CQs, QPs and SRQs with
// rdma_restrack_begin_del and rdma_restrack_commit_del, and only the other
// objects with rdma_restrack_del. Their absence is no warning.
var alsoOn = map[string][]string{"restrack_del": {"rdma_restrack_commit_del"}}

// attach loads program name alone, aimed at target (or Options.Targets'
// replacement), and links it; a failure becomes a warning. handler is
// uverbs_ret's handler_id, -1 for another program, -2 for an alsoOn
// target.
func (t *Tracer) attach(spec *ebpf.CollectionSpec, cache *btf.Cache, name, target string, handler int) {
	if r, ok := t.opts.Targets[name]; ok && handler == -1 {
		target = r
	}
	one := spec.Copy()
	ps := one.Programs[name]
	ps.AttachTo = target
	one.Programs = map[string]*ebpf.ProgramSpec{name: ps}
	if handler >= 0 {
		if err := one.Variables["handler_id"].Set(uint32(handler)); err != nil {
			t.warn(name, target, err)
			return
		}
	}
	coll, err := ebpf.NewCollectionWithOptions(one, ebpf.CollectionOptions{MapReplacements: t.shared, Cache: cache})
	if err != nil {
		if handler != -2 {
			t.warn(name, target, err)
		}
		return
	}
	l, err := link.AttachTracing(link.TracingOptions{Program: coll.Programs[name]})
	if err != nil {
		coll.Close()
		t.warn(name, target, err)
		return
	}
	t.colls = append(t.colls, coll)
	t.links = append(t.links, l)
	t.hooks = append(t.hooks, Hook{Program: name, Target: target})
}

func (t *Tracer) warn(name, target string, err error) {
	why := err.Error()
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, btf.ErrNotFound) {
		why = "this kernel has no such function (or its module is not loaded)"
	}
	t.warnings = append(t.warnings, fmt.Sprintf("trace: %s on %s left out: %s", name, target, why))
}

// privileged explains a BPF failure that is most likely missing rights.
func privileged(what string, err error) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("trace: open: %s: %w: loading BPF programs needs CAP_BPF and CAP_PERFMON (or root); run verbscope trace as root", what, err)
	}
	return fmt.Errorf("trace: open: %s: %w", what, err)
}

// Hooks lists the attached programs and their targets.
func (t *Tracer) Hooks() []Hook { return t.hooks }

// Warnings lists the programs left out, each with its reason.
func (t *Tracer) Warnings() []string { return t.warnings }

// Read blocks until the next event that passes the filter. After Close
// it returns ErrClosed.
func (t *Tracer) Read() (Event, error) {
	for {
		err := t.rd.ReadInto(&t.rec)
		rec := &t.rec
		if errors.Is(err, ringbuf.ErrClosed) || errors.Is(err, os.ErrClosed) {
			return Event{}, ErrClosed
		}
		if err != nil {
			return Event{}, fmt.Errorf("trace: read: %w", err)
		}
		if t.opts.Record != nil {
			if _, err := fmt.Fprintf(t.opts.Record, "%x\n", rec.RawSample); err != nil {
				return Event{}, fmt.Errorf("trace: record: %w", err)
			}
		}
		e, err := decode(rec.RawSample, t.boot)
		if err != nil {
			return Event{}, err
		}
		if e.PID == t.self && !t.opts.Self {
			continue
		}
		t.book.note(&e)
		if t.opts.Filter.Match(&e) {
			return e, nil
		}
	}
}

// Lost is the number of events the kernel dropped because the ring
// buffer was full: the reader fell behind (1 MiB holds about 3,000).
// After Close it is the count at Close.
func (t *Tracer) Lost() (uint64, error) {
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
		t.lostAtClose, _ = t.lostNow()
		t.closed.Store(true)
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
