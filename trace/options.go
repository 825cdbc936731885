package trace

import "io"

// Options configure Open.
type Options struct {
	// Filter keeps only the matching events.
	Filter Filter
	// Env gives rdma.Check the device's facts for a failed modify;
	// CachedEnv wraps a query of the device. Nil: Check runs without them.
	Env EnvFunc
	// Targets moves programs to other kernel functions, by program name
	// (modify_qp_udata: "ib_modify_qp_with_udata"). For tests of a
	// kernel that lacks a target.
	Targets map[string]string
	// Self keeps the events of this process, which are dropped otherwise
	// (Env opens devices).
	Self bool
	// Record receives every ring buffer record, before filtering, as one
	// line of hex: for bug reports and the decoder's tests.
	Record io.Writer
}

// Hook is one attached program: its name and the kernel function it runs on.
type Hook struct {
	Program, Target string
}
