package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync"

	"github.com/verbscope/verbscope/internal/privfile"
	"github.com/verbscope/verbscope/trace"
	"github.com/verbscope/verbscope/verbs"
)

func init() { register("trace", traceCmd) }

func traceCmd() *command {
	return &command{
		Name:    "trace",
		Summary: "every process's verbs control calls, live, from the kernel (eBPF): creates, modifies with their attributes, destroys, errors",
		Usage:   "[-j] [-n COUNT] [pid=N] [comm=NAME] [qpn=N] [dev=NAME]",
		Help: `Attaches eBPF programs to ib_core's and ib_uverbs' functions (fexit on
ib_modify_qp_with_udata, ib_create_qp_user, ib_destroy_qp_user,
rdma_restrack_add/del and the uverbs command handlers) and prints one line
per call as it happens, for every process and the kernel's own users:

  12:00:01.234567 ibv_rc_pingpong[812] modify_qp rxe0 qpn 17 INIT→RTR path_mtu=1024 dest_qp_num=18 rq_psn=0x5a3f12 … = 0

A modify shows every attribute its mask set, by struct ib_qp_attr's member
names; a failed one shows the errno and what rdma.Check says about the same
modify (which rule the kernel applied, and the fix). Posts and polls are not
traced: they are the data path.

-j prints one JSON object per line with the keys time, pid, tid, comm, dev,
verb, qpn and qp_type (QP verbs), ret (0 or -errno), errno and stage
(failures), and for modify_qp from, mask (IB_QP_* names), attrs (only what
the mask set; ah_attr and cap are objects), sgid and check.

Nothing lost goes untold: events the kernel dropped because its ring buffer
was full, and records that did not decode (they are skipped; tracing goes
on), are counted on stderr as they happen and again at the end.

Needs root (CAP_BPF and CAP_PERFMON) and a kernel with BTF
(CONFIG_DEBUG_INFO_BTF_MODULES for ib_core). A program whose kernel function
is missing is left out with a warning; if ib_core or ib_uverbs load later
(modprobe rdma_rxe), their programs attach then, with a notice such as
"trace: ib_uverbs loaded: 26 programs attached". This host's kernel may have no RDMA;
in the lab VM:
  verbscope lab -- verbscope trace -j

Examples:
  verbscope trace
  verbscope trace -j comm=ibv_rc_pingpong
  verbscope trace qpn=17 dev=rxe0
  verbscope trace -n 10 pid=812`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			jsonOut := fs.Bool("j", false, "print one JSON object per event")
			count := fs.Int("n", 0, "stop after `count` events (0: until interrupted)")
			record := fs.String("record", "", "also save every raw event to `file` (hex lines, for bug reports and tests; a new file, mode 0600)")
			force := fs.Bool("force", false, "with --record: replace the file if it exists")
			return func(ctx context.Context, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				filter, err := trace.ParseFilter(args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				var mu sync.Mutex // Notify speaks from the tracer's goroutine
				say := func(msg string) {
					mu.Lock()
					defer mu.Unlock()
					fmt.Fprintln(env.Stderr, msg)
				}
				opts := trace.Options{Filter: filter, Env: trace.CachedEnv(verbs.DeviceCheckEnv), Notify: func(msg string) { say("trace: " + msg) }}
				if *record != "" {
					f, err := privfile.Create(*record, *force)
					if err != nil {
						return fmt.Errorf("trace: record: %w", err)
					}
					defer f.Close()
					opts.Record = f
				}
				t, err := trace.Open(opts)
				if err != nil {
					return err
				}
				defer t.Close()
				if n := len(t.Hooks()); n > 0 {
					for _, w := range t.Warnings() {
						say(w)
					}
					say(fmt.Sprintf("trace: %d programs attached; tracing every process's RDMA control calls (Ctrl-C ends)", n))
				} else {
					say(fmt.Sprintf("trace: no program attached yet: none of their %d kernel functions exists, ib_core and ib_uverbs are not loaded; waiting for them (modprobe rdma_rxe, or a driver, loads them; Ctrl-C ends)", len(t.Warnings())))
				}
				stop := context.AfterFunc(ctx, func() { t.Close() })
				defer stop()
				// Losses are told as they happen, not only at the end.
				lostCtx, endLost := context.WithCancel(ctx)
				defer endLost()
				go t.WatchLost(lostCtx, trace.LostEvery, func(dropped, undecoded uint64) { say(lostText(dropped, undecoded, " so far")) })
				enc := json.NewEncoder(env.Stdout)
				for n := 0; *count == 0 || n < *count; n++ {
					e, err := t.Read()
					if errors.Is(err, trace.ErrClosed) {
						break
					}
					if err != nil {
						return err
					}
					if *jsonOut {
						err = enc.Encode(e)
					} else {
						_, err = fmt.Fprintln(env.Stdout, e.Text())
					}
					if err != nil {
						return fmt.Errorf("trace: write: %w", err)
					}
				}
				endLost()
				t.Close()
				if lost, err := t.Lost(); err == nil && lost+t.Undecoded() > 0 {
					say(lostText(lost, t.Undecoded(), " in all"))
				}
				return nil
			}
		},
	}
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
