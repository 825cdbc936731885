//go:build lab

package export

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestLabQPsAPIHidesSecrets: with an ibv_rc_pingpong pair in RTS on the
// lab's rxe0 and two exporters tracing its modifies, the one without
// authentication serves the pair's QPs, their states and the traced
// modifies' masks, but no PSN, rqpn, qkey or GID anywhere; the one with
// --api.sensitive serves them. Each start line says so.
func TestLabQPsAPIHidesSecrets(t *testing.T) {
	const public, sensitive = "127.0.0.1:19881", "127.0.0.1:19882"
	// One at a time: attaching the programs takes seconds, up to 40 s
	// on a loaded TCG guest; 120 s each leaves room.
	sens := startTracingExporter(t, sensitive, "--api.sensitive")
	pub := startTracingExporter(t, public)
	if out := pub.Output(); !strings.Contains(out, "served without authentication: /metrics, and /api/v1/qps without keys, PSNs") {
		t.Errorf("the public exporter's log does not say what it serves:\n%s", out)
	}
	if out := sens.Output(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "to anyone who reaches the port") {
		t.Errorf("the --api.sensitive exporter's log does not warn:\n%s", out)
	}

	server, client := startPingpong(t)
	pids := []uint32{server.PID(), client.PID()}
	// Both sides reach RTS within seconds; the exporter sees them at the
	// next reading and their traced modifies within 100 ms of it; 60 s
	// for a loaded TCG guest.
	var body []byte
	labkit.WaitFor(t, 60*time.Second, "both QPs' traced RTR with its dgid, rqpn and PSNs from --api.sensitive", func() bool {
		body = qpsOf(t, sensitive)
		for _, pid := range pids {
			q := qpOfPID(body, pid)
			if q == nil || q["rqpn"] == nil || q["sq-psn"] == nil || !strings.Contains(string(q["history"]), `"dgid":`) {
				return false
			}
		}
		return true
	})
	t.Logf("--api.sensitive: %.800s", body)

	labkit.WaitFor(t, 60*time.Second, "both QPs' traced modifies from the public exporter", func() bool {
		body = qpsOf(t, public)
		for _, pid := range pids {
			q := qpOfPID(body, pid)
			if q == nil || !strings.Contains(string(q["history"]), `"IB_QP_AV"`) {
				return false
			}
		}
		return true
	})
	t.Logf("public: %.800s", body)
	for _, w := range []string{"psn", "rqpn", "qkey", "dgid", "sgid", "attrs", "dest_qp"} {
		if strings.Contains(string(body), w) {
			t.Errorf("the public /api/v1/qps holds %q", w)
		}
	}
}

// startTracingExporter starts verbscope export on addr and waits until
// it traces QP modifies.
func startTracingExporter(t *testing.T, addr string, extra ...string) *labkit.Proc {
	t.Helper()
	x := labkit.Start(t, "verbscope", append([]string{"export", "--web.listen-address=" + addr, "--interval=500ms"}, extra...)...)
	t0 := time.Now()
	for !strings.Contains(x.Output(), "QP modifies are traced") {
		if time.Since(t0) > 120*time.Second {
			t.Fatalf("verbscope export %v is not tracing after 120 s:\n%s", extra, x.Output())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("verbscope export %v traces after %v", extra, time.Since(t0).Round(time.Second))
	return x
}

// startPingpong starts an ibv_rc_pingpong server and client that run
// until the test ends (its cleanup kills them).
func startPingpong(t *testing.T) (server, client *labkit.Proc) {
	t.Helper()
	args := []string{"-g", labkit.Env(t, "LAB_GID_INDEX"), "-n", "100000000"}
	server = labkit.Start(t, "ibv_rc_pingpong", args...)
	labkit.WaitFor(t, 30*time.Second, "ibv_rc_pingpong listening", func() bool {
		b, _ := os.ReadFile("/proc/net/tcp")
		return strings.Contains(string(b), ":4853 00000000:0000 0A")
	})
	client = labkit.Start(t, "ibv_rc_pingpong", append(args, labkit.Env(t, "LAB_IP"))...)
	return server, client
}

// qpsOf is the body of an exporter's /api/v1/qps, or nil.
func qpsOf(t *testing.T, addr string) []byte {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/api/v1/qps")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	return b
}

// qpOfPID is the QP a process owns in an /api/v1/qps answer, its keys
// raw.
func qpOfPID(body []byte, pid uint32) map[string]json.RawMessage {
	var qps []map[string]json.RawMessage
	if json.Unmarshal(body, &qps) != nil {
		return nil
	}
	for _, q := range qps {
		var p uint32
		if json.Unmarshal(q["pid"], &p) == nil && p == pid {
			return q
		}
	}
	return nil
}
