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
var (
	resHelpDump  = helpText("res-dump")
	resHelpModes = helpText("res-modes")
	resHelpEnd   = helpText("res-end")
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
