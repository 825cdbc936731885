package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
	"github.com/verbscope/verbscope/view"
)

// This file holds what the sysfs views (devices, ports, gids, irqs,
// counters) share: the roots to read, two readings for rates and
// warnings. Their words are parsed in words.go; view prints their rows
// (view.WriteRows).

// viewOpts are the flags every sysfs view has: the output flags and the
// roots to read.
type viewOpts struct {
	*outFlags
	sys, proc string
}

func addViewFlags(fs *flag.FlagSet) *viewOpts {
	o := &viewOpts{outFlags: addOutFlags(fs)}
	fs.StringVar(&o.sys, "sysfs", "/sys", "read sysfs from this `folder` (a recorded tree, for tests)")
	fs.StringVar(&o.proc, "procfs", "/proc", "read procfs from this `folder`")
	return o
}

// Test hooks: the clock of the FS, the wait between two samples, and
// whether (and how) to ask libibverbs for num_comp_vectors.
var (
	viewClock      = time.Now
	sampleWait     = sleepCtx
	liveVerbs      = func(f *sysfsmon.FS) bool { return f.IsLive() }
	numCompVectors = func(dev string) (int, error) {
		c, err := verbs.Open(dev)
		if err != nil {
			return 0, err
		}
		defer c.Close()
		return c.NumCompVectors()
	}
)

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (o *viewOpts) open() (*sysfsmon.FS, error) {
	return sysfsmon.NewFS(o.sys, o.proc, sysfsmon.WithClock(viewClock))
}

// openWords reads a view command's words (parseWords) and opens the
// roots, refusing a device the filters name that does not exist, and a
// port (DEV/PORT) its device does not have.
func (o *viewOpts) openWords(cmd string, args []string) (view.Filters, *sysfsmon.FS, error) {
	flt, err := parseWords(cmd, args)
	if err != nil {
		return nil, nil, err
	}
	f, err := o.open()
	if err != nil {
		return nil, nil, err
	}
	_, err = f.CheckFilters(flt)
	return flt, f, err
}

// readTwice reads once, or, with a positive interval, twice that far
// apart (with a progress line), for the views that show rates; first is
// nil without an interval.
func readTwice[S any](ctx context.Context, env *Env, what string, interval time.Duration, read func() (*S, error)) (first, second *S, err error) {
	if second, err = read(); err != nil || interval == 0 {
		return nil, second, err
	}
	if err := sample(ctx, env, what, interval); err != nil {
		return nil, nil, err
	}
	first = second
	second, err = read()
	return first, second, err
}

// sample waits for the interval with a progress line on stderr, so a
// person knows why nothing is printed yet.
func sample(ctx context.Context, env *Env, what string, d time.Duration) error {
	fmt.Fprintf(env.Stderr, "sampling %s for %s (Ctrl-C to stop)...\n", what, d)
	return sampleWait(ctx, d)
}

// warn prints per-file problems on stderr; they never fail a view.
func warn(env *Env, cmd string, ws []sysfsmon.Warning) {
	for _, w := range ws {
		kind := "warning"
		if errors.Is(w.Err, sysfsmon.ErrUnavailable) {
			kind = "note" // how the device is (no PMA), not a failure
		}
		fmt.Fprintf(env.Stderr, "verbscope %s: %s: %s\n", cmd, kind, w)
	}
}
