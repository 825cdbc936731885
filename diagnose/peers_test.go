package diagnose

import (
	"context"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/rdma"
)

// peerBody is an exporter's answer as /api/v1/qps gives it to a client
// that authenticated, with one QP destroyed lately (gone=1).
const peerBody = `[{"ifindex":2,"ifname":"rxe0","port":1,"lqpn":18,"rqpn":17,"type":"RC","state":"RTS","rq-psn":100,"sq-psn":500,"path-mig-state":"MIGRATED","pdn":3,"pid":900,"comm":"verbscope","history":[]},
{"ifname":"rxe0","lqpn":25,"state":"RTS","gone":true,"gone-at":"2026-12-07T05:00:00Z","history":[]},
{"ifname":"rxe0","port":1,"lqpn":40,"rqpn":0,"type":"RC","state":"INIT","rq-psn":0,"sq-psn":0,"pid":901,"comm":"verbscope","history":[]}]`

func TestParsePeerURLs(t *testing.T) {
	got, err := ParsePeerURLs("10.0.1.2, hostb:9000,https://hostc:9879/,[fe80::1]")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"http://10.0.1.2:9879", "http://hostb:9000", "https://hostc:9879", "http://[fe80::1]:9879"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ParsePeerURLs("ftp://x"); err == nil {
		t.Error("ftp://x parsed")
	}
}

func TestHTTPPeers(t *testing.T) {
	var gets int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets++
		if u, p, ok := r.BasicAuth(); !ok || u != "diag" || p != "s3cret" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return
		}
		if r.URL.Path != "/api/v1/qps" || r.URL.Query().Get("gone") != "1" {
			http.Error(w, "bad request "+r.URL.String(), http.StatusBadRequest)
			return
		}
		w.Write([]byte(peerBody))
	}))
	defer srv.Close()
	auth := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(auth, []byte("diag:s3cret\n"), 0o600)
	p, err := NewHTTPPeers(PeerConfig{URLs: []string{srv.URL}, AuthFile: auth})
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx := context.Background()
	q := rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500)
	a := p.Find(ctx, &q, "")
	if a.QP == nil || a.QP.LQPN != 18 || a.QP.State != "RTS" || a.QP.RQPSN != 100 || a.QP.PID != 900 || a.QP.Host != host || !a.ByNumbers {
		t.Errorf("by numbers: got %+v (%+v)", a, a.QP)
	}
	gone := rcQP("rxe0", 30, 25, rdma.QPStateRTS, 101, 500)
	if a := p.Find(ctx, &gone, ""); a.QP == nil || !a.QP.Gone {
		t.Errorf("gone: got %+v", a)
	}
	unconnected := rcQP("rxe0", 31, 40, rdma.QPStateRTS, 101, 500)
	if a := p.Find(ctx, &unconnected, ""); a.QP == nil || a.QP.State != "INIT" {
		t.Errorf("a peer back in INIT, without its remote number: got %+v", a)
	}
	if gets != 1 {
		t.Errorf("%d GETs in one reading, want 1", gets)
	}
	p.Forget()
	p.Find(ctx, &q, "")
	if gets != 2 {
		t.Errorf("%d GETs after Forget, want 2", gets)
	}
	// A GID naming a host nobody listens on: a fact, not an error.
	a = p.Find(ctx, &q, "::ffff:127.0.0.2")
	if !a.HostKnown || len(a.Failed) != 1 || a.QP != nil || !strings.HasPrefix(a.Failed[0], "127.0.0.2:9879: ") {
		t.Errorf("a host that does not answer: got %+v", a)
	}
	noAuth, _ := NewHTTPPeers(PeerConfig{URLs: []string{srv.URL}})
	if a := noAuth.Find(ctx, &q, ""); len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "--peer-auth") {
		t.Errorf("without credentials: got %+v", a)
	}
}

// An https exporter: verified against --peer-ca's certificate; without
// it (a self-signed one, not in the system's CAs) the refusal is a fact
// of the answer, and a --peer-ca file with no certificate fails at once.
func TestHTTPSPeers(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(peerBody)) }))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600)
	ctx := context.Background()
	q := rcQP("rxe0", 17, 18, rdma.QPStateRTS, 101, 500)
	p, err := NewHTTPPeers(PeerConfig{URLs: []string{srv.URL}, CAFile: ca})
	if err != nil {
		t.Fatal(err)
	}
	if a := p.Find(ctx, &q, ""); a.QP == nil || a.QP.LQPN != 18 || len(a.Failed) != 0 {
		t.Errorf("with --peer-ca: got %+v", a)
	}
	untrusted, _ := NewHTTPPeers(PeerConfig{URLs: []string{srv.URL}})
	if a := untrusted.Find(ctx, &q, ""); a.QP != nil || len(a.Failed) != 1 || !strings.Contains(a.Failed[0], "certificate") {
		t.Errorf("without --peer-ca: got %+v, want the certificate refused as a fact", a)
	}
	empty := filepath.Join(dir, "empty.pem")
	os.WriteFile(empty, []byte("not a certificate\n"), 0o600)
	if _, err := NewHTTPPeers(PeerConfig{URLs: []string{srv.URL}, CAFile: empty}); err == nil || !strings.Contains(err.Error(), "no PEM certificate") {
		t.Errorf("a --peer-ca without a certificate: %v", err)
	}
}

func FuzzDecodePeerQPs(f *testing.F) {
	f.Add([]byte(peerBody))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"error":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		decodePeerQPs(b) // must not panic
	})
}
