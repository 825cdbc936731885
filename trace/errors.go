package trace

import "errors"

// ErrUnavailable means BPF tracing cannot run here: not Linux, a kernel
// without BTF, or a build that left it out.
var ErrUnavailable = errors.New("trace: unavailable")

// ErrClosed is Read's answer after Close.
var ErrClosed = errors.New("trace: closed")
