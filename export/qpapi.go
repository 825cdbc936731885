package export

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// qpAPI answers /api/v1/qps: a JSON array with one object per live QP,
// the keys and values of `verbscope res qp -j` (rdma -j resource show qp)
// plus "history", the states the Tracker saw, oldest first; an entry that
// a traced modify made (verbscope trace) carries it as "modify", with the
// attributes the mask set and, for a failed one, ret, errno and check;
// and "verdict" for a QP the diagnosis says needs a look (diagnose.Verdict:
// whole to authenticated clients, its cause and certainty to others).
// ?gone=1 adds the QPs destroyed lately after the live ones ("gone",
// "gone-at"), for a peer's diagnosis to tell a destroyed QP from none.
// Only an authenticated client (or any, with APIOptions.Sensitive) gets
// the hidden fields (hiddenFields, the history's PSNs, the modify's
// attrs and check). QPs come in (device, lqpn) order; ?filter, ?limit and
// ?after choose them (parseQPQuery), and a page that is not the last
// names the next in a Link header. 503 until the first netlink reading,
// when the last one failed, or when it is late.
type qpAPI struct {
	c    *Collector
	auth APIOptions
}

// hiddenNote tells a client without authentication what it did not get.
const hiddenNote = "rqpn, sq-psn, rq-psn and keys, and of history entries sq-psn, rq-psn, modify.attrs and modify.check: " +
	"served to clients that authenticate (basic_auth_users in the exporter's web config), or to all with --api.sensitive"

func (a *qpAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "export: /api/v1/qps is read-only: use GET", http.StatusMethodNotAllowed)
		return
	}
	sensitive := a.auth.servesSensitive(r)
	values, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		http.Error(w, "export: /api/v1/qps: the query does not parse: "+err.Error(), http.StatusBadRequest)
		return
	}
	q, err := parseQPQuery(values, sensitive)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	doc, err := a.c.qpDoc()
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	entries, all := doc.body(sensitive)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if !sensitive {
		h.Set("X-Verbscope-Hidden", hiddenNote)
	}
	if len(q.filters) == 0 && q.limit == 0 && q.after == nil && !q.gone {
		h.Set("Content-Length", strconv.Itoa(len(all)))
		w.Write(all)
		return
	}
	page, next := q.page(entries)
	if next != nil {
		nv := maps.Clone(values)
		nv.Set("after", next.String())
		h.Set("Link", "<"+r.URL.Path+"?"+nv.Encode()+`>; rel="next"`)
	}
	n := 3
	for _, e := range page {
		n += len(e.json[boolIndex(sensitive)]) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, e := range page {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, e.json[boolIndex(sensitive)]...)
	}
	if q.gone && next == nil {
		for _, g := range doc.gone(sensitive) {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, g...)
		}
	}
	w.Write(append(b, "]\n"...))
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// qpDoc returns the latest netlink reading's answer, or why there is
// none: no reading yet, the last one failed, or it is late.
func (c *Collector) qpDoc() (*qpDoc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	switch {
	case c.late(c.seenFrame, c.frameAt, now) && c.seenFrame:
		return nil, fmt.Errorf("export: the last RDMA netlink reading ended %v ago, more than %d intervals: a reading hangs",
			now.Sub(c.frameAt).Round(time.Millisecond), LateAfter)
	case c.late(c.seenFrame, c.frameAt, now):
		return nil, fmt.Errorf("export: no RDMA netlink reading in %d intervals: the first one hangs", LateAfter)
	case c.qps != nil:
		return c.qps, nil
	case c.frame.Err != nil:
		return nil, fmt.Errorf("export: the last RDMA netlink reading failed: %s", strings.TrimSpace(c.frame.Err.Error()))
	}
	return nil, fmt.Errorf("export: no RDMA netlink reading yet")
}
