//go:build !linux

package trace

import (
	"context"
	"fmt"
)

// Tracer is BPF tracing, which only Linux has.
type Tracer struct{}

// Open says that tracing is Linux-only.
func Open(Options) (*Tracer, error) {
	return nil, fmt.Errorf("trace: open: eBPF tracing of the RDMA stack needs Linux: %w", ErrUnavailable)
}

// Hooks is empty here.
func (*Tracer) Hooks() []Hook { return nil }

// Warnings is empty here.
func (*Tracer) Warnings() []string { return nil }

// Read never has an event here.
func (*Tracer) Read() (Event, error) { return Event{}, ErrUnavailable }

// Lost is always 0 here.
func (*Tracer) Lost() (uint64, error) { return 0, nil }

// Undecoded is always 0 here.
func (*Tracer) Undecoded() uint64 { return 0 }

// drain has nothing to wait for here.
func (*Tracer) drain(context.Context) error { return nil }

// Close does nothing here.
func (*Tracer) Close() error { return nil }
