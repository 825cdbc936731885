package fleet

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestErrorsHideThePassword: whatever fails, an error names the server
// without the password of --prometheus: a refused connection, an answer
// that is not the API, a URL that does not parse (whose url.Error would
// quote it whole).
func TestErrorsHideThePassword(t *testing.T) {
	const secret = "s3cr%41t"
	notAPI := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>proxy login</html>"))
	}))
	defer notAPI.Close()
	host := strings.TrimPrefix(notAPI.URL, "http://")
	for _, tc := range []struct{ name, url, want string }{
		{"refused", "http://prom:" + secret + "@127.0.0.1:1", "http://prom:xxxxx@127.0.0.1:1"},
		{"not the API", "http://prom:" + secret + "@" + host, "http://prom:xxxxx@" + host + "/api/v1/alerts"},
		{"not a URL", "http://prom:" + secret + "@bad host:9090", "http://xxxxx@bad host:9090"},
		{"bad escape in the password", "http://prom:pa%zzss@prometheus:9090", "http://xxxxx@prometheus:9090"},
		{"no scheme", "prom:" + secret + "@prometheus:9090", "prom:" + secret + "@prometheus:9090"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := (&Client{URL: tc.url}).Alerts(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if tc.name == "no scheme" {
				// "prom" parses as the scheme: no userinfo, and the
				// request fails on the unknown scheme.
				if !strings.Contains(msg, "unsupported protocol scheme") {
					t.Errorf("error %q", msg)
				}
				return
			}
			for _, leak := range []string{secret, "s3cr", "zz"} {
				if strings.Contains(msg, leak) {
					t.Errorf("error %q shows the password (%q)", msg, leak)
				}
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not name the server as %q", msg, tc.want)
			}
		})
	}
}

// TestRedactRaw: the userinfo of a URL that does not parse is cut by
// hand, up to the last @ of the authority.
func TestRedactRaw(t *testing.T) {
	for raw, want := range map[string]string{
		"http://u:p@h:9090":          "http://u:xxxxx@h:9090",
		"http://u:p%zz@h:9090/x":     "http://xxxxx@h:9090/x",
		"http://u:p@q@bad host/a@b":  "http://xxxxx@bad host/a@b",
		"http://bad host:9090":       "http://bad host:9090",
		"http://%zz":                 "http://%zz",
		"":                           "",
		"http://user:pass@[::1:9090": "http://xxxxx@[::1:9090",
	} {
		if got := redactRaw(raw); got != want {
			t.Errorf("redactRaw(%q) = %q, want %q", raw, got, want)
		}
	}
}

// TestRowsRefuseBadMetricNames: a name that the answer to the error
// counters' query gives goes into the next queries only if it is one of
// them; anything else (PromQL that would rewrite the query) is an error,
// and no query carrying it is sent.
func TestRowsRefuseBadMetricNames(t *testing.T) {
	q := queries("verbscope")
	for _, name := range []string{
		`verbscope_port_symbol_errors_total{job="x"} or vector(1)`,
		`up`,
		`verbscope_port_symbol_errors_total_evil`,
		"verbscope_port_s\u00fdmbol_errors_total",
		``,
	} {
		t.Run(name, func(t *testing.T) {
			var asked []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if r.URL.Path == "/api/v1/alerts" {
					w.Write([]byte(`{"status":"success","data":{"alerts":[]}}`))
					return
				}
				expr := r.URL.Query().Get("query")
				asked = append(asked, expr)
				result := `[]`
				if expr == q["errorNames"] {
					n, _ := json.Marshal(name)
					result = `[{"metric":{"__name__":` + string(n) + `},"value":[1,"1"]}]`
				}
				w.Write([]byte(`{"status":"success","data":{"resultType":"vector","result":` + result + `}}`))
			}))
			defer srv.Close()
			_, err := Rows(context.Background(), &Client{URL: srv.URL}, "verbscope")
			if err == nil || !strings.Contains(err.Error(), "refusing to put it into a query") {
				t.Fatalf("error %v, want the name refused", err)
			}
			if slices.Contains(asked, errorRateQuery(name, "verbscope")) {
				t.Errorf("the query %s was sent", errorRateQuery(name, "verbscope"))
			}
		})
	}
	for _, good := range []string{"verbscope_port_symbol_errors_total", "verbscope_port_local_ack_timeouts_total"} {
		if err := checkErrorCounter(good); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
