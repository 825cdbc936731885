package export

import (
	"cmp"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// qpQuery is what a request to /api/v1/qps asks: which QPs (the filter
// words of `verbscope res qp`) and which page of them.
type qpQuery struct {
	filters view.Filters
	// limit is the most QPs to answer (0: all); after, when set, is the
	// QP the previous page ended with.
	limit int
	after *qpCursor
	// gone adds the QPs destroyed lately (the Tracker's kept
	// histories) after the live ones, each with "gone" and "gone-at":
	// what a peer's diagnosis asks, to tell a QP destroyed from one that
	// never was.
	gone bool
}

// qpCursor names one QP as "DEV:LQPN" (ifname and lqpn of its JSON).
type qpCursor struct {
	dev  string
	lqpn uint32
}

func (c qpCursor) String() string { return c.dev + ":" + strconv.FormatUint(uint64(c.lqpn), 10) }

// compareCursors orders QPs by device, then lqpn.
func compareCursors(a, b qpCursor) int {
	return cmp.Or(strings.Compare(a.dev, b.dev), cmp.Compare(a.lqpn, b.lqpn))
}

// qpParams are the query parameters /api/v1/qps takes.
var qpParams = []string{"filter", "limit", "after", "gone"}

// parseQPQuery parses the query of a request to /api/v1/qps:
//
//	filter=state=ERR+type=RC   the words of `verbscope res qp`, spaces or + between them
//	limit=100                  at most that many QPs
//	after=rxe0:17              the QPs after that one (device, then lqpn order)
//	gone=1                     also the QPs destroyed lately, after the live ones (on the last page)
//
// Every error is the client's (a 400) and says what is valid. Without
// sensitive a filter on a hidden field is refused: its answers would
// tell the value the answer hides.
func parseQPQuery(q url.Values, sensitive bool) (qpQuery, error) {
	var out qpQuery
	for k := range q {
		if !slices.Contains(qpParams, k) {
			return out, fmt.Errorf("export: /api/v1/qps takes no parameter %q; it takes %s", k, strings.Join(qpParams, ", "))
		}
	}
	var words []string
	for _, v := range q["filter"] {
		words = append(words, strings.Fields(v)...)
	}
	flt, err := view.ParseCommandWords("qp", words)
	if err != nil {
		return out, fmt.Errorf("export: /api/v1/qps: %s", strings.TrimPrefix(err.Error(), "view: "))
	}
	for _, f := range flt {
		if !sensitive && hiddenFields[f.Key] {
			return out, fmt.Errorf("export: /api/v1/qps: filter %s is served only to authenticated clients (basic_auth_users in the web config, or --api.sensitive), "+
				"as the field itself is; the filters here are %s", f.Key, strings.Join(publicFilters(), ", "))
		}
	}
	out.filters = flt
	if v, ok := single(q, "limit"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return out, fmt.Errorf("export: /api/v1/qps: limit %q: want a count of QPs, 1 or more", v)
		}
		out.limit = n
	}
	if v, ok := single(q, "after"); ok {
		dev, num, found := cutLast(v, ":")
		n, err := strconv.ParseUint(num, 10, 32)
		if !found || dev == "" || err != nil {
			return out, fmt.Errorf("export: /api/v1/qps: after %q: want DEV:LQPN, the ifname and lqpn of the last QP of the previous page (rxe0:17)", v)
		}
		out.after = &qpCursor{dev: dev, lqpn: uint32(n)}
	}
	if v, ok := single(q, "gone"); ok {
		switch v {
		case "1", "true":
			out.gone = true
		case "0", "false":
		default:
			return out, fmt.Errorf("export: /api/v1/qps: gone %q: want 1 (also the QPs destroyed lately) or 0", v)
		}
	}
	for _, k := range []string{"limit", "after", "gone"} {
		if len(q[k]) > 1 {
			return out, fmt.Errorf("export: /api/v1/qps: %s is given %d times; give it once", k, len(q[k]))
		}
	}
	return out, nil
}

// publicFilters are the filter words of QPs that do not read a hidden
// field.
func publicFilters() []string {
	s, _ := view.Lookup("qp")
	var out []string
	for _, k := range s.KeyNames() {
		if !hiddenFields[k] {
			out = append(out, k)
		}
	}
	return out
}

func single(q url.Values, k string) (string, bool) {
	if vs := q[k]; len(vs) > 0 {
		return vs[0], true
	}
	return "", false
}

// cutLast cuts s around the last sep: device names may hold one.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// page returns the entries of one answer: those after the cursor that
// pass the filters, at most limit, and the cursor of the next page when
// more remain. It hands out pointers: copying an entry would read the
// JSON of the other shape, which another request may be building.
func (q *qpQuery) page(entries []qpEntry) (out []*qpEntry, next *qpCursor) {
	i := 0
	if a := q.after; a != nil {
		i = sort.Search(len(entries), func(j int) bool { return compareCursors(entries[j].cursor, *a) > 0 })
	}
	for ; i < len(entries); i++ {
		e := &entries[i]
		if !q.filters.Match(e.row) {
			continue
		}
		if q.limit > 0 && len(out) == q.limit {
			return out, &out[len(out)-1].cursor
		}
		out = append(out, e)
	}
	return out, nil
}
