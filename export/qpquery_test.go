package export

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// errCollector holds the lab's QPs with lqpn 18 moved to ERR: GSI 1 in
// RTS, RC 18 in ERR, RC 19 in RTS, on rxe0.
func errCollector(t testing.TB) *Collector {
	t.Helper()
	rts := recorded(t, "rc-rts")
	return feed(Options{}, rts, withState(rts, 18, rdma.QPStateErr))
}

// get asks h for target and returns the status, the lqpns answered and
// the Link header.
func get(t *testing.T, h http.Handler, target string) (status int, lqpns []uint32, link, body string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	if rec.Code == http.StatusOK {
		var qps []struct{ LQPN uint32 }
		if err := json.Unmarshal(rec.Body.Bytes(), &qps); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", target, err, rec.Body)
		}
		lqpns = []uint32{}
		for _, q := range qps {
			lqpns = append(lqpns, q.LQPN)
		}
	}
	return rec.Code, lqpns, rec.Header().Get("Link"), rec.Body.String()
}

// TestQPsAPIQuery: ?filter takes `res qp`'s words, a bad word is a 400
// naming the valid ones, a filter on a hidden field needs
// authentication, and ?limit and ?after page in (device, lqpn) order.
func TestQPsAPIQuery(t *testing.T) {
	c := errCollector(t)
	public := &qpAPI{c: c}
	for _, tc := range []struct {
		name, target string
		h            http.Handler
		status       int
		want         []uint32
		body         string
	}{
		{"all", "/api/v1/qps", public, 200, []uint32{1, 18, 19}, ""},
		{"the issue's filter", "/api/v1/qps?filter=state=ERR+type=RC", public, 200, []uint32{18}, ""},
		{"key and value as two words", "/api/v1/qps?filter=state+RTS", public, 200, []uint32{1, 19}, ""},
		{"filter given twice", "/api/v1/qps?filter=type=RC&filter=state=RTS", public, 200, []uint32{19}, ""},
		{"a bare link", "/api/v1/qps?filter=rxe0/1", public, 200, []uint32{1, 18, 19}, ""},
		{"lists and ranges", "/api/v1/qps?filter=lqpn=1,18-18", public, 200, []uint32{1, 18}, ""},
		{"comm", "/api/v1/qps?filter=comm=ibv_rc_pingpong", public, 200, []uint32{18, 19}, ""},
		{"no device like it", "/api/v1/qps?filter=dev=mlx5_0", public, 200, []uint32{}, ""},
		{"a state that cannot be", "/api/v1/qps?filter=state=BOGUS", public, 400, nil, "it is one of RESET, INIT, RTR, RTS, SQD, SQE, ERR"},
		{"a filter that does not exist", "/api/v1/qps?filter=colour=red", public, 400, nil, "its filters are link, dev, port, lqpn"},
		{"a key without a value", "/api/v1/qps?filter=state", public, 400, nil, "state needs a value"},
		{"a hidden field", "/api/v1/qps?filter=sq-psn=0-100", public, 400, nil, "served only to authenticated clients"},
		{"rqpn", "/api/v1/qps?filter=rqpn=19", public, 400, nil, "the filters here are link, dev, port, lqpn, pid, type"},
		{"a hidden field, sensitive", "/api/v1/qps?filter=rqpn=19", sensitiveAPI(c), 200, []uint32{18}, ""},
		{"an unknown parameter", "/api/v1/qps?state=ERR", public, 400, nil, "it takes filter, limit, after"},
		{"limit 0", "/api/v1/qps?limit=0", public, 400, nil, "want a count of QPs, 1 or more"},
		{"limit not a number", "/api/v1/qps?limit=ten", public, 400, nil, "want a count"},
		{"limit twice", "/api/v1/qps?limit=1&limit=2", public, 400, nil, "give it once"},
		{"after without lqpn", "/api/v1/qps?after=rxe0", public, 400, nil, "want DEV:LQPN"},
		{"after with a bad lqpn", "/api/v1/qps?after=rxe0:x", public, 400, nil, "want DEV:LQPN"},
		{"a query that does not parse", "/api/v1/qps?filter=%zz", public, 400, nil, "does not parse"},
		{"limit", "/api/v1/qps?limit=2", public, 200, []uint32{1, 18}, ""},
		{"after", "/api/v1/qps?after=rxe0:1", public, 200, []uint32{18, 19}, ""},
		{"after a QP that went", "/api/v1/qps?after=rxe0:5", public, 200, []uint32{18, 19}, ""},
		{"after the last", "/api/v1/qps?after=rxe0:19", public, 200, []uint32{}, ""},
		{"after a device before", "/api/v1/qps?after=mlx5_0:7", public, 200, []uint32{1, 18, 19}, ""},
		{"after a device after", "/api/v1/qps?after=siw0:0", public, 200, []uint32{}, ""},
		{"a device name with a colon", "/api/v1/qps?after=rxe0:x:3", public, 200, []uint32{}, ""},
		{"filter and page", "/api/v1/qps?filter=type=RC&limit=1&after=rxe0:18", public, 200, []uint32{19}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, lqpns, _, body := get(t, tc.h, tc.target)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			if d := cmp.Diff(tc.want, lqpns); d != "" {
				t.Errorf("lqpns (-want +got):\n%s", d)
			}
			if !strings.Contains(body, tc.body) {
				t.Errorf("body %q lacks %q", body, tc.body)
			}
		})
	}
}

// TestQPsAPIPages follows the Link headers from ?limit=1: every QP once,
// in the order of the whole answer, and no Link on the last page.
func TestQPsAPIPages(t *testing.T) {
	h := &qpAPI{c: errCollector(t)}
	var got []uint32
	target := "/api/v1/qps?filter=link+rxe0&limit=1"
	for range 10 {
		status, lqpns, link, body := get(t, h, target)
		if status != http.StatusOK {
			t.Fatalf("%s: status %d: %s", target, status, body)
		}
		got = append(got, lqpns...)
		if link == "" {
			break
		}
		u, ok := strings.CutPrefix(link, "<")
		u, ok2 := strings.CutSuffix(u, `>; rel="next"`)
		if !ok || !ok2 {
			t.Fatalf("Link %q", link)
		}
		next, err := url.Parse(u)
		if err != nil || next.Query().Get("filter") != "link rxe0" || next.Query().Get("limit") != "1" {
			t.Fatalf("Link %q does not keep the filter and the limit", link)
		}
		target = u
	}
	if d := cmp.Diff([]uint32{1, 18, 19}, got); d != "" {
		t.Errorf("paged lqpns (-want +got):\n%s", d)
	}
}

// TestQPsAPIShared: the answer is built once per reading and shape;
// every request without a query gets the same bytes, and a new reading
// makes a new answer.
func TestQPsAPIShared(t *testing.T) {
	c := errCollector(t)
	d1, err := c.qpDoc()
	if err != nil {
		t.Fatal(err)
	}
	_, a := d1.body(false)
	_, b := d1.body(false)
	_, s := d1.body(true)
	if unsafe.SliceData(a) != unsafe.SliceData(b) {
		t.Error("two requests built the answer twice")
	}
	if string(a) == string(s) {
		t.Error("the sensitive answer is the public one")
	}
	if d2, _ := c.qpDoc(); d2 != d1 {
		t.Error("a second request without a new reading got another answer")
	}
	_, _, _, body := get(t, &qpAPI{c: c}, "/api/v1/qps")
	if body != string(a) {
		t.Errorf("served %q, want the shared answer", body)
	}
	c.observe(inspect.Frame{Snapshot: recorded(t, "idle")})
	if d3, _ := c.qpDoc(); d3 == d1 {
		t.Error("a new reading kept the old answer")
	}
	// Filtered pages are cut from the shared objects, byte for byte.
	entries, all := d1.body(false)
	var want []json.RawMessage
	if err := json.Unmarshal(all, &want); err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if string(e.json[0]) != string(want[i]) {
			t.Errorf("entry %d: %s, want %s", i, e.json[0], want[i])
		}
	}
}

// FuzzQPsQuery: whatever query a client sends, parsing and paging never
// panic; a query that parses gives only QPs that pass its filters, in
// order, after its cursor, at most its limit, and a public one never
// filters on a hidden field.
func FuzzQPsQuery(f *testing.F) {
	for _, seed := range []string{"", "filter=state=ERR+type=RC", "filter=rxe0/1&limit=1&after=rxe0:1", "filter=sq-psn=1",
		"after=a:b:3", "limit=-1", "filter=lqpn+0-6,17&filter=comm=x", "filter=%zz", "filter=link=rxe0/-", "limit=99999999999999999999"} {
		f.Add(seed)
	}
	d, err := errCollector(f).qpDoc()
	if err != nil {
		f.Fatal(err)
	}
	entries := d.rows()
	f.Fuzz(func(t *testing.T, raw string) {
		values, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		for _, sensitive := range []bool{false, true} {
			q, err := parseQPQuery(values, sensitive)
			if err != nil {
				if !strings.HasPrefix(err.Error(), "export: /api/v1/qps") {
					t.Errorf("error %q does not say where", err)
				}
				continue
			}
			for _, flt := range q.filters {
				if !sensitive && hiddenFields[flt.Key] {
					t.Errorf("public query filters on %s", flt.Key)
				}
			}
			page, next := q.page(entries)
			if q.limit > 0 && len(page) > q.limit {
				t.Errorf("%d QPs for limit %d", len(page), q.limit)
			}
			if next != nil && (len(page) == 0 || *next != page[len(page)-1].cursor) {
				t.Errorf("next %v after page %v", next, page)
			}
			if !slices.IsSortedFunc(page, func(a, b *qpEntry) int { return compareCursors(a.cursor, b.cursor) }) {
				t.Error("page out of order")
			}
			for _, e := range page {
				if !q.filters.Match(e.row) || (q.after != nil && compareCursors(e.cursor, *q.after) <= 0) {
					t.Errorf("QP %v does not belong to the page of %q", e.cursor, raw)
				}
			}
		}
	})
}

// TestQPsAPIConcurrent: requests of both shapes, whole and paged, at
// once on a fresh reading build each shape once and race on nothing
// (run under -race).
func TestQPsAPIConcurrent(t *testing.T) {
	c := errCollector(t)
	hs := []http.Handler{&qpAPI{c: c}, sensitiveAPI(c)}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := []string{"/api/v1/qps", "/api/v1/qps?filter=type=RC&limit=1"}[i%2]
			rec := httptest.NewRecorder()
			hs[i/2%2].ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			if rec.Code != http.StatusOK {
				t.Errorf("%s: %d %s", target, rec.Code, rec.Body)
			}
		}()
	}
	wg.Wait()
}
