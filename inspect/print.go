package inspect

import (
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// QueryOf asks the kernel only for the device (and port) that a dev or
// link filter of flt names, as iproute2 does; a list of several asks
// for all.
func QueryOf(flt Filters) Query {
	var q Query
	for _, key := range []string{"link", "dev"} {
		f, ok := flt.Get(key)
		if !ok || len(f.Words()) != 1 {
			continue
		}
		dev, port, _ := strings.Cut(f.Words()[0], "/")
		q.Dev = dev
		if n, err := strconv.ParseUint(port, 10, 32); err == nil && n > 0 {
			q.Port = uint32(n)
		}
		return q
	}
	return q
}

// PrintRows dumps the objects of kind k that q asks for (with k "",
// each device's counts: Summary) and prints each that flt passes to out,
// in iproute2's order, as `rdma resource show` (-j) does. The dump is
// complete before the first object goes out, so a failed dump prints
// nothing. With rec, the owners' process names go into the recording.
func (c *Conn) PrintRows(k Kind, q Query, flt Filters, rec *Recording, out *view.RowStream) error {
	add := func(row Row) {
		if flt.Match(row) {
			out.Add(row)
		}
	}
	var owners *[]*Object
	if rec != nil {
		owners = new([]*Object)
	}
	var err error
	switch {
	case k == rdma.KindQP && out.Compact() && len(flt) == 0 && !q.DriverDetails && rec == nil:
		// Nothing to match and nothing but iproute2's keys: each QP
		// writes its JSON without a row (rows_json.go).
		var qps []QP
		if qps, err = c.QPs(q); err != nil {
			return err
		}
		for i := range qps {
			out.AddJSON(qps[i].AppendJSON)
		}
	case k == "":
		var sums []Summary
		if sums, err = c.Summary(q.Dev); err != nil {
			return err
		}
		for i := range sums {
			add(sums[i].Row())
		}
	default:
		err = c.DumpRows(k, q, q.DriverDetails, add, owners)
	}
	if err == nil && rec != nil {
		rec.AddComm(*owners...)
	}
	return err
}
