package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

// resOwnersWord is the object word of `verbscope res owners`: who holds
// the objects, not a kind of them.
const resOwnersWord = "owners"

// parseOwnersArgs parses what follows `res owners`: an optional
// "by process|unit|container|pod|host" (iproute2's style of a keyword
// and a value), then the filters of owner rows (none for the host's one
// line).
func parseOwnersArgs(r *resRequest, args []string) (*resRequest, error) {
	r.object, r.by = resOwnersWord, owners.ByProcess
	if len(args) > 0 && args[0] == "by" {
		if len(args) < 2 {
			return nil, usageErrorf("by needs process, unit, container, pod or host")
		}
		b, err := owners.ParseBy(args[1])
		if err != nil {
			return nil, usageErrorf("%s", err.Error()[len("owners: "):])
		}
		r.by, args = b, args[2:]
	}
	if r.by == owners.ByHost && len(args) > 0 {
		return nil, usageErrorf("by host prints one line, the host's: it takes no filters, got %q", strings.Join(args, " "))
	}
	flt, err := parseWords(owners.Kind, args)
	if err != nil {
		return nil, err
	}
	r.filters = flt
	return r, nil
}

// resOwners prints one row per group of processes: a snapshot of every
// object, each process looked up in /proc once. By host it prints the
// one line of owners.Host.
func resOwners(ctx context.Context, env *Env, req *resRequest, o *outFlags) error {
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return err
	}
	conn, err := inspect.Dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	s, err := conn.Snapshot(ctx, inspect.SnapshotOptions{NoCounters: true})
	if err != nil {
		return err
	}
	ps := owners.Read(s, fsys.ProcessOwner)
	out := view.NewRowStream(env.Stdout, o.json, o.pretty)
	if req.by == owners.ByHost {
		mem, err := fsys.MemTotal()
		if err != nil {
			fmt.Fprintf(env.Stderr, "res owners: %v; memtotal is 0\n", err)
		}
		out.Add(owners.HostOf(ps, mem).Row())
		return out.Close()
	}
	for _, g := range owners.Groups(ps, req.by) {
		if row := g.Row(); req.filters.Match(row) {
			out.Add(row)
		}
	}
	sayNoMatch(env, "res", "owner", out.N(), req.filters)
	return out.Close()
}

// ownerFilterNames are the filter words of owner rows, for the help.
func ownerFilterNames() []string {
	s, _ := view.Lookup(owners.Kind)
	return s.KeyNames()
}
