package export

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/testcert"
	"github.com/verbscope/verbscope/rdma"
)

// tracedCollector holds the lab's two RC QPs in RTS, one of them with
// two traced modifies that set what must stay hidden: a DGID, a qkey, a
// PSN and the peer's QP number, and rdma.Check's finding quoting them.
func tracedCollector(t *testing.T) *Collector {
	t.Helper()
	s := recorded(t, "rc-rts")
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	tr.Update(s)
	q := s.QPs[0]
	tr.Observe(inspect.Modify{
		Time: s.Time.Add(time.Second), Dev: q.DevName, QPN: q.LQPN, PID: 812, Comm: "ibv_rc_pingpong",
		From: inspect.QPState(rdma.QPStateInit), To: inspect.QPState(rdma.QPStateRTR), HasState: true,
		Mask:      []string{"IB_QP_STATE", "IB_QP_AV", "IB_QP_DEST_QPN", "IB_QP_RQ_PSN", "IB_QP_QKEY"},
		AttrsJSON: []byte(`{"qp_state":"RTR","dest_qp_num":19,"rq_psn":5914898,"qkey":286331153,"ah_attr":{"grh":{"dgid":"::ffff:10.0.0.2"}}}`),
		Ret:       -22, Errno: "EINVAL", Check: "the DGID ::ffff:10.0.0.2 is IPv4 but the source GID 0 (fe80::1) is IPv6",
	})
	hist := map[inspect.Key][]inspect.StateEvent{}
	for _, q := range s.QPs {
		k := inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}
		hist[k] = tr.History(k)
	}
	c, _ := newTestCollector(Options{})
	c.observe(inspect.Frame{Snapshot: s, History: hist})
	return c
}

// secretWords are what a public answer must not hold anywhere: the
// hidden keys and the traced values.
var secretWords = []string{"psn", "rqpn", "qkey", "dgid", "dest_qp", "attrs", "check", "5914898", "286331153", "10.0.0.2", "lkey", "rkey"}

// checkPublic fails unless body is /api/v1/qps without a hidden field,
// with each QP's identity, owner and the traced modify's mask.
func checkPublic(t *testing.T, body []byte) {
	t.Helper()
	for _, w := range secretWords {
		if strings.Contains(string(body), w) {
			t.Errorf("the public answer holds %q:\n%s", w, body)
		}
	}
	var qps []map[string]any
	if err := json.Unmarshal(body, &qps); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, body)
	}
	var masks int
	for _, q := range qps {
		for _, k := range []string{"lqpn", "state", "type", "pid", "comm"} {
			if _, ok := q[k]; !ok && (k != "pid" || q["type"] != "GSI") { // the kernel's GSI QP has no pid
				t.Errorf("QP %v lacks %s", q["lqpn"], k)
			}
		}
		for _, e := range q["history"].([]any) {
			if m, ok := e.(map[string]any)["modify"].(map[string]any); ok && len(m["mask"].([]any)) == 5 && m["errno"] == "EINVAL" {
				masks++
			}
		}
	}
	if len(qps) != 3 || masks != 1 {
		t.Errorf("%d QPs, %d traced modifies with their mask and errno; want 3 and 1:\n%s", len(qps), masks, body)
	}
}

// checkSensitive fails unless body holds every hidden field.
func checkSensitive(t *testing.T, body []byte) {
	t.Helper()
	for _, w := range []string{`"sq-psn":`, `"rq-psn":`, `"rqpn":`, `"qkey":286331153`, `"dgid":"::ffff:10.0.0.2"`, `"check":`} {
		if !strings.Contains(string(body), w) {
			t.Errorf("the authenticated answer lacks %s:\n%s", w, body)
		}
	}
}

// TestQPsAPIHidesSecrets runs the real handler behind the real server:
// without a web config, or with one that only encrypts, /api/v1/qps hides
// keys, PSNs, rqpn and traced attributes; with basic auth (right
// credentials) or --api.sensitive it serves them.
func TestQPsAPIHidesSecrets(t *testing.T) {
	dir := t.TempDir()
	web := testcert.WebConfig(t, dir, "prometheus", "s3cret", net.IPv4(127, 0, 0, 1))
	tlsOnly := filepath.Join(dir, "tls-only.yml")
	if err := os.WriteFile(tlsOnly, []byte("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tracedCollector(t)
	for _, tc := range []struct {
		name      string
		api       APIOptions
		tls, auth bool
		sensitive bool
	}{
		{"no web config", APIOptions{}, false, false, false},
		{"TLS without users", APIOptions{WebConfig: tlsOnly}, true, false, false},
		{"basic auth", APIOptions{WebConfig: web.Config}, true, true, true},
		{"--api.sensitive", APIOptions{Sensitive: true}, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := serve(t, c, tc.api)
			scheme, client := "http", &http.Client{Timeout: 10 * time.Second}
			if tc.tls {
				scheme = "https"
				client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: web.Pool}}
			}
			req, _ := http.NewRequest(http.MethodGet, scheme+"://"+addr+"/api/v1/qps", nil)
			if tc.auth {
				req.SetBasicAuth("prometheus", "s3cret")
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if hidden := resp.Header.Get("X-Verbscope-Hidden"); (hidden == "") != tc.sensitive {
				t.Errorf("X-Verbscope-Hidden %q", hidden)
			}
			if tc.sensitive {
				checkSensitive(t, body)
			} else {
				checkPublic(t, body)
			}
		})
	}
}

// TestServesSensitive: who counts as authenticated. The web config is
// read per request; exporter-toolkit, in front, has checked a configured
// user's password.
func TestServesSensitive(t *testing.T) {
	dir := t.TempDir()
	web := testcert.WebConfig(t, dir, "prometheus", "s3cret", net.IPv4(127, 0, 0, 1))
	noUsers := filepath.Join(dir, "no-users.yml")
	if err := os.WriteFile(noUsers, []byte("tls_server_config:\n  cert_file: cert.pem\n  key_file: key.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	verified := &tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{{}}}}
	for _, tc := range []struct {
		name string
		api  APIOptions
		user string
		tls  *tls.ConnectionState
		want bool
	}{
		{"nothing", APIOptions{}, "", nil, false},
		{"a basic auth header without a web config", APIOptions{}, "prometheus", nil, false},
		{"--api.sensitive", APIOptions{Sensitive: true}, "", nil, true},
		{"a configured user", APIOptions{WebConfig: web.Config}, "prometheus", nil, true},
		{"an unknown user", APIOptions{WebConfig: web.Config}, "mallory", nil, false},
		{"no credentials", APIOptions{WebConfig: web.Config}, "", nil, false},
		{"a config without users", APIOptions{WebConfig: noUsers}, "prometheus", nil, false},
		{"a config that went away", APIOptions{WebConfig: filepath.Join(dir, "gone.yml")}, "prometheus", nil, false},
		{"a verified client certificate", APIOptions{WebConfig: noUsers}, "", verified, true},
		{"an unverified client certificate", APIOptions{WebConfig: noUsers}, "", &tls.ConnectionState{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/qps", nil)
			if tc.user != "" {
				r.SetBasicAuth(tc.user, "whatever")
			}
			r.TLS = tc.tls
			if got := tc.api.servesSensitive(r); got != tc.want {
				t.Errorf("servesSensitive = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestExposure: the start-up line says what goes out unauthenticated,
// and warns when the hidden fields go to anyone.
func TestExposure(t *testing.T) {
	dir := t.TempDir()
	web := testcert.WebConfig(t, dir, "prometheus", "s3cret", net.IPv4(127, 0, 0, 1))
	for _, tc := range []struct {
		name  string
		api   APIOptions
		level slog.Level
		want  string
	}{
		{"default", APIOptions{}, slog.LevelInfo, "served without authentication: /metrics, and /api/v1/qps without keys, PSNs"},
		{"basic auth", APIOptions{WebConfig: web.Config}, slog.LevelInfo, "every page asks for authentication"},
		{"basic auth and --api.sensitive", APIOptions{WebConfig: web.Config, Sensitive: true}, slog.LevelInfo, "every page asks for authentication"},
		{"--api.sensitive", APIOptions{Sensitive: true}, slog.LevelWarn, "to anyone who reaches the port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			level, msg, err := tc.api.exposure()
			if err != nil {
				t.Fatal(err)
			}
			if level != tc.level || !strings.Contains(msg, tc.want) {
				t.Errorf("%v %q, want %v and %q", level, msg, tc.level, tc.want)
			}
		})
	}
	if _, _, err := (APIOptions{WebConfig: filepath.Join(dir, "missing.yml")}).exposure(); err == nil {
		t.Error("a missing web config: no error")
	}
}
