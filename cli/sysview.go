package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// This file holds what the sysfs views (devices, ports, gids, irqs,
// counters) share: the root and output flags, iproute2-style filters,
// tables and JSON.

// viewOpts are the flags every sysfs view has.
type viewOpts struct {
	sys, proc string
	json      bool
	pretty    bool
}

func addViewFlags(fs *flag.FlagSet) *viewOpts {
	o := &viewOpts{}
	fs.StringVar(&o.sys, "sysfs", "/sys", "read sysfs from this `folder` (a recorded tree, for tests)")
	fs.StringVar(&o.proc, "procfs", "/proc", "read procfs from this `folder`")
	fs.BoolVar(&o.json, "j", false, "print JSON (one line) for scripts")
	fs.BoolVar(&o.pretty, "p", false, "with -j: indent the JSON")
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

// openChecked opens the roots and returns the device names, failing when a
// dev= filter names none of them.
func (o *viewOpts) openChecked(flt filters) (*sysfsmon.FS, []string, error) {
	f, err := o.open()
	if err != nil {
		return nil, nil, err
	}
	names, err := f.DeviceNames()
	if err != nil {
		return nil, nil, err
	}
	if err := flt.checkDev(names); err != nil {
		return nil, nil, err
	}
	return f, names, nil
}

// readTwice reads once, or, with a positive interval, twice that far
// apart (with a progress line), for the views that show rates; first is
// nil without an interval.
func readTwice[S any](ctx context.Context, env *Env, what string, interval time.Duration, read func() (*S, error)) (first, second *S, err error) {
	if interval < 0 {
		return nil, nil, usageErrorf("--interval %s: must be positive", interval)
	}
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

// filters are iproute2-style selectors: "dev rxe0 port 1" or "dev=rxe0 port=1".
type filters map[string]string

func parseFilters(args []string, allowed ...string) (filters, error) {
	f := filters{}
	for i := 0; i < len(args); i++ {
		k, v, ok := strings.Cut(args[i], "=")
		if !ok {
			if i+1 >= len(args) {
				return nil, usageErrorf("%q needs a value (%s=VALUE)", k, k)
			}
			i++
			v = args[i]
		}
		if !slices.Contains(allowed, k) {
			return nil, usageErrorf("unknown filter %q; this view filters by %s", k, strings.Join(allowed, "=, ")+"=")
		}
		if k == "port" {
			if n, err := strconv.Atoi(v); err != nil || n < 0 {
				return nil, usageErrorf("port=%s: a port is a number, counting from 1", v)
			}
		}
		f[k] = v
	}
	return f, nil
}

// match reports whether the value passes the filter key (unset passes).
func (f filters) match(key, value string) bool {
	want, ok := f[key]
	return !ok || want == value
}

// checkDev fails when a dev= filter names no device, so a typo is not an
// empty table.
func (f filters) checkDev(names []string) error {
	if d, ok := f["dev"]; ok && !slices.Contains(names, d) {
		if len(names) == 0 {
			return fmt.Errorf("no RDMA device %q: this host has none", d)
		}
		return fmt.Errorf("no RDMA device %q; there are: %s", d, strings.Join(names, ", "))
	}
	return nil
}

func writeJSON(w io.Writer, o *viewOpts, v any) error {
	var b []byte
	var err error
	if o.pretty {
		b, err = json.MarshalIndent(v, "", "  ")
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// warn prints per-file problems on stderr; they never fail a view.
func warn(env *Env, cmd string, ws []sysfsmon.Warning) {
	for _, w := range ws {
		fmt.Fprintf(env.Stderr, "verbscope %s: warning: %s\n", cmd, w)
	}
}

// table prints aligned columns separated by two spaces, like `ip -br`.
type table struct {
	rows [][]string
}

func newTable(header ...string) *table { return &table{rows: [][]string{header}} }

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) {
	var width []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len(c))
		}
	}
	for _, r := range t.rows {
		var b strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", width[i]-len(c)+2))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// dash shows an empty value as "-".
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func hex(v uint64, digits int) string { return fmt.Sprintf("0x%0*x", digits, v) }

// rate prints a per-second rate compactly.
func rate(r float64) string {
	switch {
	case r == 0:
		return "0"
	case r >= 100:
		return strconv.FormatFloat(r, 'f', 0, 64)
	default:
		return strconv.FormatFloat(r, 'f', 1, 64)
	}
}

// viewHelpJSON is the shared tail of the views' help.
const viewHelpJSON = `Empty lists are null in JSON. Per-file read problems (a driver that refuses
a file) are printed on stderr as warnings and never hide the rest; the
exit status is 1 only when nothing could be read (no /sys/class/infiniband:
no RDMA core loaded).`
