package trace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/verbscope/verbscope/internal/privfile"
)

// RunOptions tune Run, `verbscope trace`.
type RunOptions struct {
	// Filter keeps only the matching events.
	Filter Filter
	// Env gives the check of a failed modify the device's facts
	// (Options.Env).
	Env EnvFunc
	// JSON prints one JSON object per event, not a line of text.
	JSON bool
	// Count stops after that many events; 0: until ctx ends.
	Count int
	// RecordPath, when set, also saves every raw record there
	// (Options.Record) in a new private file; Force replaces one that
	// is there (privfile.Create).
	RecordPath string
	Force      bool
}

// Run traces every process's RDMA control calls until ctx ends or
// o.Count events were printed: each event on out, as text or JSON,
// and on errs what trace has to say (the programs attached, a module
// that loaded later) and the events it lost, as they are lost and
// again at the end.
func Run(ctx context.Context, o RunOptions, out, errs io.Writer) error {
	var mu sync.Mutex // Notify and the loss watcher speak from goroutines of their own
	say := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(errs, msg)
	}
	opts := Options{Filter: o.Filter, Env: o.Env, Notify: func(msg string) { say("trace: " + msg) }}
	if o.RecordPath != "" {
		f, err := privfile.Create(o.RecordPath, o.Force)
		if err != nil {
			return fmt.Errorf("trace: record: %w", err)
		}
		defer f.Close()
		opts.Record = f
	}
	t, err := Open(opts)
	if err != nil {
		return err
	}
	defer t.Close()
	sayAttached(t, say)
	stop := context.AfterFunc(ctx, func() { t.Close() })
	defer stop()
	// Losses are told as they happen, not only at the end.
	lostCtx, endLost := context.WithCancel(ctx)
	defer endLost()
	go watchLost(lostCtx, t, lostEvery, func(dropped, undecoded uint64) { say(lostText(dropped, undecoded, " so far")) })
	if err := printEvents(t, o, out); err != nil {
		return err
	}
	endLost()
	t.Close()
	if lost, err := t.Lost(); err == nil && lost+t.Undecoded() > 0 {
		say(lostText(lost, t.Undecoded(), " in all"))
	}
	return nil
}

// sayAttached says how many programs attached, or that none did yet
// and trace waits for ib_core and ib_uverbs.
func sayAttached(t *Tracer, say func(string)) {
	n := len(t.Hooks())
	if n == 0 {
		say(fmt.Sprintf("trace: no program attached yet: none of their %d kernel functions exists, ib_core and ib_uverbs are not loaded; waiting for them (modprobe rdma_rxe, or a driver, loads them; Ctrl-C ends)", len(t.Warnings())))
		return
	}
	for _, w := range t.Warnings() {
		say(w)
	}
	say(fmt.Sprintf("trace: %d programs attached; tracing every process's RDMA control calls (Ctrl-C ends)", n))
}

// printEvents prints t's events on out until t closes or o.Count were
// printed.
func printEvents(t *Tracer, o RunOptions, out io.Writer) error {
	enc := json.NewEncoder(out)
	for n := 0; o.Count == 0 || n < o.Count; n++ {
		e, err := t.Read()
		if errors.Is(err, ErrClosed) {
			return nil
		}
		if err != nil {
			return err
		}
		if o.JSON {
			err = enc.Encode(e)
		} else {
			_, err = fmt.Fprintln(out, e.Text())
		}
		if err != nil {
			return fmt.Errorf("trace: write: %w", err)
		}
	}
	return nil
}

// lostText is what verbscope trace says of the events it lost.
func lostText(dropped, undecoded uint64, sofar string) string {
	var parts []string
	if dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d events lost%s: the kernel's ring buffer was full (the output could not keep up); filter in the kernel's favour with fewer processes, or -j to a file", dropped, sofar))
	}
	if undecoded > 0 {
		parts = append(parts, fmt.Sprintf("%d records skipped%s: they did not decode (a BPF object this binary does not match; rebuild, or report it with --record)", undecoded, sofar))
	}
	return "trace: " + strings.Join(parts, "; ")
}
