package cli

import (
	"context"
	"flag"

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
				return trace.Run(ctx, trace.RunOptions{Filter: filter, Env: trace.CachedEnv(verbs.DeviceCheckEnv), JSON: *jsonOut, Count: *count,
					RecordPath: *record, Force: *force}, env.Stdout, env.Stderr)
			}
		},
	}
}
