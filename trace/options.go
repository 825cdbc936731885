package trace

import (
	"io"
	"time"
)

// Options configure Open.
type Options struct {
	// Filter keeps only the matching events.
	Filter Filter
	// Env gives rdma.Check the device's facts for a failed modify;
	// CachedEnv wraps a query of the device. Nil: Check runs without them.
	Env EnvFunc
	// Groups selects the programs by what they trace; zero is GroupAll.
	// Loading is most of Open's time (seconds under emulation), so a
	// reader of QP modifies alone asks for GroupQP.
	Groups Group
	// Notify hears what trace has to say while it runs, without a
	// "trace: " of its own: programs that attached after Open because
	// their module (ib_core, ib_uverbs) loaded then ("ib_uverbs loaded:
	// 26 programs attached", from a goroutine of the Tracer's), the
	// first record Read skipped, a Record writer that failed (from
	// Read's goroutine). Nil: all of it still happens, silently.
	Notify func(string)
	// Targets moves programs to other kernel functions, by program name
	// (modify_qp_udata: "ib_modify_qp_with_udata"). For tests of a
	// kernel that lacks a target.
	Targets map[string]string
	// Self keeps the events of this process, which are dropped otherwise
	// (Env opens devices).
	Self bool
	// Latency is how late Read may hand over an event: the kernel wakes
	// the reader only once a batch waits, so Read also looks this often.
	// Zero is 100 ms, for a person watching; a reader that shows events
	// once a second (the dashboard) passes that and wakes ten times
	// less (each wake-up of an idle process costs CPU: docs/performance.md).
	Latency time.Duration
	// Record receives every ring buffer record, before filtering, as one
	// line of hex: for bug reports and the decoder's tests.
	Record io.Writer
}

// Group is a set of trace's programs, by what they trace.
type Group uint8

const (
	// GroupQP: QP creates (ib_create_qp_user), modifies
	// (ib_modify_qp_with_udata, ib_modify_qp) and destroys
	// (ib_destroy_qp_user), what the inspector's Tracker takes.
	GroupQP Group = 1 << iota
	// GroupObjects: every object's create and destroy through restrack
	// (rdma_restrack_add, rdma_restrack_del).
	GroupObjects
	// GroupAsync: QP async events (ib_uverbs_qp_event_handler).
	GroupAsync
	// GroupUverbs: the failures of uverbs command handlers that never
	// reached the core.
	GroupUverbs
	// GroupAll is every program.
	GroupAll = GroupQP | GroupObjects | GroupAsync | GroupUverbs
)

// programGroups is each BPF program's group (bpf/trace.bpf.c).
var programGroups = map[string]Group{
	"create_qp_user":         GroupQP,
	"modify_qp_udata_enter":  GroupQP,
	"modify_qp_udata":        GroupQP,
	"modify_qp_kernel_enter": GroupQP,
	"modify_qp_kernel":       GroupQP,
	"destroy_qp_enter":       GroupQP,
	"destroy_qp_exit":        GroupQP,
	"restrack_add":           GroupObjects,
	"restrack_del":           GroupObjects,
	"reg_user_mr":            GroupObjects,
	"qp_event":               GroupAsync,
	"uverbs_ret":             GroupUverbs,
}

// Hook is one attached program: its name and the kernel function it runs on.
type Hook struct {
	Program, Target string
}
