//go:build lab

package export

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
)

// TestLabQPsAPIHidesSecrets: with an ibv_rc_pingpong pair in RTS on the
// lab's rxe0, the exporter without authentication serves the pair's QPs
// (state, type, pid, comm) but no PSN and no rqpn anywhere; the one with
// --api.sensitive serves them, as RDMA netlink gave them. Each start
// line says so. Both run with --no-trace: attaching the programs can take
// minutes on a loaded TCG host, and the traced attributes (qkey, dgid)
// are hidden by the same code the unit test TestQPsAPIHidesSecrets runs
// with traced modifies through the real server.
func TestLabQPsAPIHidesSecrets(t *testing.T) {
	labkit.Clean(t)
	const public, sensitive = "127.0.0.1:19881", "127.0.0.1:19882"
	pub := labkit.Start(t, "verbscope", "export", "--web.listen-address="+public, "--interval=500ms", "--no-trace")
	sens := labkit.Start(t, "verbscope", "export", "--web.listen-address="+sensitive, "--interval=500ms", "--no-trace", "--api.sensitive")
	server, client := labkit.PingpongPair(t, "-g", labkit.Env(t, "LAB_GID_INDEX"), "-e", "-n", "100000000")
	pids := []uint32{server.PID(), client.PID()}

	// Both sides reach RTS within seconds and the exporters see them at
	// their next reading; 60 s for a loaded TCG guest.
	var body []byte
	labkit.WaitFor(t, labkit.Step, "both QPs in RTS with rqpn and PSNs from --api.sensitive", func() bool {
		body = qpsOf(sensitive)
		for _, pid := range pids {
			q := qpOfPID(body, pid)
			if q == nil || string(q["state"]) != `"RTS"` || q["rqpn"] == nil || q["sq-psn"] == nil || q["rq-psn"] == nil {
				return false
			}
		}
		return true
	})
	t.Logf("--api.sensitive: %.600s", body)
	labkit.WaitFor(t, labkit.Step, "both QPs in RTS from the public exporter", func() bool {
		body = qpsOf(public)
		for _, pid := range pids {
			if q := qpOfPID(body, pid); q == nil || string(q["state"]) != `"RTS"` || q["comm"] == nil {
				return false
			}
		}
		return true
	})
	t.Logf("public: %.600s", body)
	for _, w := range []string{"psn", "rqpn", "qkey", "dgid", "attrs"} {
		if strings.Contains(string(body), w) {
			t.Errorf("the public /api/v1/qps holds %q", w)
		}
	}
	if out := pub.Output(); !strings.Contains(out, "served without authentication: /metrics, and /api/v1/qps without keys, PSNs") {
		t.Errorf("the public exporter's log does not say what it serves:\n%s", out)
	}
	if out := sens.Output(); !strings.Contains(out, "level=WARN") || !strings.Contains(out, "to anyone who reaches the port") {
		t.Errorf("the --api.sensitive exporter's log does not warn:\n%s", out)
	}
}

// qpsOf is the body of an exporter's /api/v1/qps, or nil.
func qpsOf(addr string) []byte {
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

// qpOfPID is the QP a process owns in an /api/v1/qps answer, its values
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
