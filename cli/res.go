package cli

import (
	"context"
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/inspect"
)

// resObjects are the object kinds of `rdma resource show`.
var resObjects = []string{"qp", "cq", "mr", "pd", "ctx", "srq", "cm_id"}

func init() { register(resCmd) }

func resCmd() *Command {
	return &Command{
		Name:    "res",
		Summary: "every process's QPs, CQs, MRs, PDs, contexts, SRQs and cm_ids, like rdma resource show",
		Usage:   "[flags] [qp|cq|mr|pd|ctx|srq|cm_id] [DEV | link DEV/PORT | dev DEV] [FILTER VALUE]...",
		Help: `Asks the kernel over RDMA netlink (nldev), as iproute2's 'rdma resource
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
and inclusive ranges (lqpn 0-6,17), names take lists (state RTS,ERR).
  qp     link lqpn rqpn pid sq-psn rq-psn type path-mig-state state pdn comm
  cq     dev users poll-ctx pid cqn ctxn comm
  mr     dev rkey lkey mrlen pid mrn pdn comm
  pd     dev users pid ctxn pdn comm
  ctx    dev pid ctxn comm
  srq    dev pid srqn type pdn cqn lqpn comm
  cm_id  link lqpn qp-type state ps pid src-addr src-port dst-addr dst-port cm-idn comm
"link DEV/PORT" and "dev DEV" also limit what the kernel is asked for.
Keys (rkey, lkey, local_dma_lkey) are only sent to root (CAP_NET_ADMIN).

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
  verbscope res -d qp`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			jsonOut := fs.Bool("j", false, "print JSON, as rdma -j does")
			driver := fs.Bool("d", false, "ask for driver details and print the driver's attributes (drv_*), as rdma -dd does")
			record := fs.String("record", "", "also save the raw netlink replies to `file` (JSON, for bug reports and tests)")
			return func(ctx context.Context, args []string) error {
				args, err := parseInterspersed(fs, args)
				if err != nil {
					return usageErrorf("%v", err)
				}
				req, err := parseResArgs(args)
				if err != nil {
					return err
				}
				req.driver = *driver
				conn, err := inspect.Dial()
				if err != nil {
					return err
				}
				defer conn.Close()
				var rec *inspect.Recording
				if *record != "" {
					rec = &inspect.Recording{Note: "verbscope res " + strings.Join(args, " ")}
					conn.Record(rec)
				}
				rows, err := req.rows(conn, rec)
				if err != nil {
					return err
				}
				if rec != nil {
					if err := rec.WriteFile(*record); err != nil {
						return err
					}
				}
				return writeRows(env.Stdout, rows, *jsonOut)
			}
		},
	}
}

// parseInterspersed lets flags follow the arguments, as in
// "verbscope res qp -j", which the flag package alone stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			rest = append(rest, args[1:]...)
			break
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
	return rest, nil
}

// resRequest is a parsed `verbscope res` command line.
type resRequest struct {
	object  string // "" for the summary
	query   inspect.Query
	filters inspect.Filters
	driver  bool
}

func parseResArgs(args []string) (*resRequest, error) {
	r := &resRequest{}
	if len(args) > 0 && (args[0] == "show" || args[0] == "list") {
		args = args[1:]
	}
	if len(args) > 0 {
		for _, o := range resObjects {
			if args[0] == o {
				r.object, args = o, args[1:]
				break
			}
		}
	}
	if r.object == "" {
		switch {
		case len(args) == 1 && !strings.Contains(args[0], "="):
			r.query.Dev = args[0] // "verbscope res rxe0", like rdma res show DEV
			return r, nil
		case len(args) > 0:
			return nil, usageErrorf("%q is not an object kind (%s); filters go after one", args[0], strings.Join(resObjects, ", "))
		}
		return r, nil
	}
	for len(args) > 0 {
		key, value, hasEq := strings.Cut(args[0], "=")
		args = args[1:]
		if !hasEq {
			if len(args) == 0 {
				return nil, usageErrorf("filter %q has no value", key)
			}
			value, args = args[0], args[1:]
		}
		if err := r.addFilter(key, value); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *resRequest) addFilter(key, value string) error {
	switch key {
	case "dev", "link":
		// Narrow the request as iproute2 does; a port number goes to
		// the kernel for QP and cm_id dumps.
		dev, port, _ := strings.Cut(value, "/")
		r.query.Dev = dev
		if n, err := strconv.ParseUint(port, 10, 32); err == nil && n > 0 {
			r.query.Port = uint32(n)
		}
		if key == "dev" && (r.object == "qp" || r.object == "cm_id") {
			key = "link"
		}
		if key == "link" && r.object != "qp" && r.object != "cm_id" {
			key = "dev"
			value = dev
		}
	}
	f, err := inspect.ParseFilter(r.object, key, value)
	if err != nil {
		return usageErrorf("%s", strings.TrimPrefix(err.Error(), "inspect: filter: "))
	}
	r.filters = append(r.filters, f)
	return nil
}

// rows dumps what r asks for and keeps the rows that pass the filters.
func (r *resRequest) rows(c *inspect.Conn, rec *inspect.Recording) ([]inspect.Row, error) {
	q := r.query
	q.DriverDetails = r.driver
	var rows []inspect.Row
	add := func(row inspect.Row) {
		if r.filters.Match(row) {
			rows = append(rows, row)
		}
	}
	var owners []*inspect.Object
	var err error
	switch r.object {
	case "":
		var sums []inspect.Summary
		sums, err = c.Summary(q.Dev)
		for i := range sums {
			add(sums[i].Row())
		}
	case "qp":
		err = addRows(c.QPs, q, r.driver, add, &owners)
	case "cq":
		err = addRows(c.CQs, q, r.driver, add, &owners)
	case "mr":
		err = addRows(c.MRs, q, r.driver, add, &owners)
	case "pd":
		err = addRows(c.PDs, q, r.driver, add, &owners)
	case "ctx":
		err = addRows(c.Contexts, q, r.driver, add, &owners)
	case "srq":
		err = addRows(c.SRQs, q, r.driver, add, &owners)
	case "cm_id":
		err = addRows(c.CMIDs, q, r.driver, add, &owners)
	}
	if rec != nil {
		rec.AddComm(owners...)
	}
	return rows, err
}

// addRows dumps one kind of object and hands each one's row to add and
// its shared fields to owners (for recordings).
func addRows[T any, P interface {
	*T
	Row(driver bool) inspect.Row
	Base() *inspect.Object
}](dump func(inspect.Query) ([]T, error), q inspect.Query, driver bool, add func(inspect.Row), owners *[]*inspect.Object) error {
	objs, err := dump(q)
	for i := range objs {
		p := P(&objs[i])
		add(p.Row(driver))
		*owners = append(*owners, p.Base())
	}
	return err
}

// writeRows prints rows as text lines or as one JSON array on one line,
// as rdma -j does.
func writeRows(w io.Writer, rows []inspect.Row, jsonOut bool) error {
	var b []byte
	if jsonOut {
		b = append(b, '[')
		for i, r := range rows {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.AppendJSON(b)
		}
		b = append(b, "]\n"...)
	} else {
		for _, r := range rows {
			b = append(b, r.Text()...)
			b = append(b, '\n')
		}
	}
	_, err := w.Write(b)
	return err
}
