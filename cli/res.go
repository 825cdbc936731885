package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/privfile"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// resObjects are the object kinds of `rdma resource show`.
var resObjects = func() []string {
	var out []string
	for _, k := range rdma.ResourceKinds() {
		out = append(out, string(k))
	}
	return out
}()

func init() { register("res", resCmd) }

func resCmd() *command {
	return &command{
		Name:    "res",
		Summary: "every process's QPs, CQs, MRs, PDs, contexts, SRQs and cm_ids, like rdma resource show",
		Usage:   "[flags] [qp|cq|mr|pd|ctx|srq|cm_id] [DEV | DEV/PORT | dev DEV | link DEV/PORT] [FILTER VALUE]... | qp --follow [-j] [-n COUNT] [FILTERS] | owners [-j] [by process|unit|container|pod|host] [FILTERS]",
		// The filters' lists are built here, not at init: only res's
		// help pays for them.
		Help:          resHelpDump + resFilterHelp() + resHelpModes + "  owners " + strings.Join(ownerFilterNames(), " ") + resHelpEnd,
		FlagsAnywhere: true,
		Setup:         resSetup,
	}
}

// res's help: the dump and its filters, then the two other modes
// (--follow and owners) up to owners' filters, then the rest.
const (
	resHelpDump = `Asks the kernel over RDMA netlink (nldev), as iproute2's 'rdma resource
show' does, so it sees the objects of every process and of the kernel.
Without an object kind it prints each device's object counts.

The text view prints what 'rdma resource show' prints. With -j the output
is a JSON array with the same keys and values as 'rdma -j resource show'
(ifindex, ifname, port, lqpn, rqpn, type, state, rq-psn, sq-psn,
path-mig-state, pdn, pid, comm, ...), so scripts written for iproute2 work.
Kernel objects have no pid; their comm is the owning module, printed in
brackets in the text view and plain in JSON. The pid is the thread that
created the object, as the kernel records it: in a multi-threaded program
(any Go program) objects of one process can show several pids.

Filters are iproute2's, as "name value" or "name=value": numbers take lists
and inclusive ranges (lqpn 0-6,17), names take lists (state RTS,ERR), and a
name that no object can have (state BOGUS) is refused with the ones that
exist. A lone DEV or DEV/PORT is "dev DEV" or "link DEV/PORT".
`
	resHelpModes = `"link DEV/PORT" and "dev DEV" also limit what the kernel is asked for.
-d asks for details; -dd (or -d -d) also prints the driver's attributes
(drv_*), as rdma -dd does. Flags may stand anywhere.
Keys (rkey, lkey, local_dma_lkey) are only sent to root (CAP_NET_ADMIN).

A dump cannot know the history it did not watch; 'res qp --follow' watches.
It prints the QPs that pass the filters, then, every second, one line per
change: a QP that appeared or vanished, a state change, and as root (CAP_BPF
and CAP_PERFMON, a kernel with BTF) every process's modifies, traced from
the kernel as 'verbscope trace' does: the attributes each set, and for a
failed one its errno and what rdma.Check says about it:
  12:00:01.234567 appeared link rxe0/1 lqpn 17 type RC state RESET ... comm ibv_rc_pingpong
  12:00:01.240001 rxe0 lqpn 17 RTR→RTS timeout=14 retry_cnt=7 rnr_retry=7 max_rd_atomic=1 sq_psn=0x5a3f12 by ibv_rc_pingpong[812]
  12:00:01.250002 rxe0 lqpn 17 RTS→RTR = -22 EINVAL by verbscope[901]: ...
  12:00:09.000000 vanished link rxe0/1 lqpn 17 type RC state RTS ... comm ibv_rc_pingpong
With -j each line is one JSON object: "time" and "event" (present for the
QPs at the start, appeared, vanished, state, modify, modify_failed), then
res qp -j's keys, or for a change ifname, lqpn, from, state (to for a failed
modify) and "modify" (pid, comm, mask, attrs as trace -j names them, ret,
errno, check). -n COUNT stops after COUNT changes; Ctrl-C ends it. A QP
that lived between two readings shows only through its traced modifies
(the filters judge them by the modifying process); a traced modify can
reach the list up to 100 ms late, after the reading that saw its result.

'res owners' says who holds the objects: one row per process (pid, comm,
user, its systemd unit, container and Kubernetes pod as its cgroup path
names them, /proc/PID/cgroup), or with "by unit", "by container" or "by
pod" one per group of them, with the objects of each kind, the QPs by
state, the bytes its MRs pin and what the kernel counts as pinned for it
(vmpin: /proc/PID/status VmPin, which ibv_reg_mr charges page by page)
against the process's RLIMIT_MEMLOCK (/proc/PID/limits; a group shows its
member nearest its limit) and flags:
"memlock" when a process pins more than 80% of a limit that applies to it
(its next ibv_reg_mr may fail with ENOMEM; CAP_IPC_LOCK lifts the limit),
"gone" for objects of processes that exited. Containers are
"runtime:ID" (docker, containerd, cri-o, podman); "-" is none. Filters:
`
	resHelpEnd = `
Objects whose creating task was reaped have no pid: they count as pid 0.
"by host" prints one line: the live processes holding objects, their MR
bytes and VmPin summed, the host's RAM (memtotal, /proc/meminfo) and the
share of it pinned (mem-pinned).
One reading cannot tell a leak: growth is "-" here; the dashboard's
owners view, 'export --collector.owners=N' and 'doctor --watch D' watch
over a window and name the kinds that only grow.

This host's kernel may have no RDMA at all; then run it in the lab VM:
  verbscope lab -- verbscope res qp

Examples:
  verbscope res
  verbscope res qp
  verbscope res qp -j
  verbscope res qp state=RTS type=RC
  verbscope res qp link rxe0/1 lqpn 0-6
  verbscope res cq pid 1234
  verbscope res mr dev rxe0 -j
  verbscope res qp rxe0/1 -j -p
  verbscope res -dd qp
  verbscope res qp --follow
  verbscope res qp --follow -j comm ibv_rc_pingpong
  verbscope res qp rxe0 --follow -n 10
  verbscope res owners
  verbscope res owners by unit -j
  verbscope res owners by pod flags memlock
  verbscope res owners by host -j`
)

// resFlags are res's flags: the output flags and those of its modes.
type resFlags struct {
	out           *outFlags
	record        string
	force, follow bool
	count         int
}

// resSetup declares res's flags and returns the command: one of its
// three modes, as the words and flags ask.
func resSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	f := &resFlags{out: addOutFlags(fs)}
	fs.StringVar(&f.record, "record", "", "also save the raw netlink replies to `file` (JSON, for bug reports and tests; a new file, mode 0600)")
	fs.BoolVar(&f.force, "force", false, "with --record: replace the file if it exists")
	fs.BoolVar(&f.follow, "follow", false, "with qp: print the QPs, then one line per change (appeared, vanished, state, traced modify) until Ctrl-C")
	fs.IntVar(&f.count, "n", 0, "with --follow: stop after `count` changes (0: until interrupted)")
	return func(ctx context.Context, args []string) error {
		req, err := parseResArgs(args)
		if err != nil {
			return err
		}
		switch {
		case f.follow || f.count != 0:
			if err := f.checkFollow(req); err != nil {
				return err
			}
			return followQPs(ctx, env, req, f.out, f.count)
		case req.object == resOwnersWord:
			if f.record != "" || f.out.details > 0 {
				return usageErrorf("res owners takes neither --record nor -d")
			}
			return resOwners(ctx, env, req, f.out)
		}
		return dumpRes(env, req, f, "verbscope res "+strings.Join(args, " "))
	}
}

// checkFollow refuses what --follow and -n cannot go with.
func (f *resFlags) checkFollow(req *resRequest) error {
	switch {
	case !f.follow:
		return usageErrorf("-n goes with --follow")
	case req.object != "qp":
		return usageErrorf("--follow follows QPs only: verbscope res qp --follow")
	case f.count < 0:
		return usageErrorf("-n %d: want 0 or more", f.count)
	case f.record != "" || f.out.details > 0:
		return usageErrorf("--follow takes neither --record nor -d")
	}
	return nil
}

// dumpRes is `verbscope res [KIND]`: one dump, each object that passes
// the filters printed, and with --record the netlink replies saved,
// noted with the command line.
func dumpRes(env *Env, req *resRequest, f *resFlags, note string) error {
	req.query.DriverDetails = f.out.details >= 2
	defer noGC()()
	conn, err := dialRes(req)
	if err != nil {
		return err
	}
	defer conn.Close()
	var rec *inspect.Recording
	var recFile *os.File
	if f.record != "" {
		// Created first, so a name that cannot be written
		// fails before the dump, not after it.
		if recFile, err = privfile.Create(f.record, f.force); err != nil {
			return fmt.Errorf("res: record: %w", err)
		}
		defer recFile.Close()
		rec = &inspect.Recording{Note: note}
		conn.Record(rec)
	}
	out := view.NewRowStream(env.Stdout, f.out.json, f.out.pretty)
	if err := conn.PrintRows(inspect.Kind(req.object), req.query, req.filters, rec, out); err != nil {
		return err
	}
	if rec != nil {
		if err := rec.Encode(recFile); err != nil {
			return err
		}
		if err := recFile.Close(); err != nil {
			return fmt.Errorf("res: record: %w", err)
		}
	}
	what := req.object
	if what == "" {
		what = "device"
	}
	// Nothing went out yet when nothing matched: the note
	// still comes before the empty output.
	sayNoMatch(env, "res", what, out.N(), req.filters)
	return out.Close()
}

// resFilterHelp lists each object kind's filters, as view knows them.
func resFilterHelp() string {
	var b strings.Builder
	for _, o := range resObjects {
		s, _ := view.Lookup(o)
		fmt.Fprintf(&b, "  %-6s %s\n", o, strings.Join(s.KeyNames(), " "))
	}
	return b.String()
}

// dialRes opens RDMA netlink for req, refusing a device its filters
// name that the kernel does not know.
func dialRes(req *resRequest) (*inspect.Conn, error) {
	conn, err := inspect.Dial()
	if err != nil {
		return nil, err
	}
	if err := conn.CheckFilters(req.filters); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// resRequest is a parsed `verbscope res` command line.
type resRequest struct {
	object  string // "" for the summary
	query   inspect.Query
	filters inspect.Filters
	// by groups `res owners`.
	by owners.By
}

// parseResArgs parses the words of `verbscope res` (the flags taken
// out): an optional show or list, an object kind, then its filters.
func parseResArgs(args []string) (*resRequest, error) {
	r := &resRequest{}
	if len(args) > 0 && (args[0] == "show" || args[0] == "list") {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == resOwnersWord {
		return parseOwnersArgs(r, args[1:])
	}
	kind := "res"
	if len(args) > 0 && slices.Contains(resObjects, args[0]) {
		r.object, kind, args = args[0], args[0], args[1:]
	}
	flt, err := parseWords(kind, args)
	if err != nil {
		if r.object == "" && len(args) > 0 {
			return nil, usageErrorf("%v (or %q is not an object kind: %s)", strings.TrimPrefix(err.Error(), "usage: "), args[0], strings.Join(resObjects, ", "))
		}
		return nil, err
	}
	r.filters = flt
	r.query = inspect.QueryOf(flt)
	return r, nil
}
