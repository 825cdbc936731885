//go:build lab

package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
)

// rtsSetUp reports whether attrs (a traced modify's, as trace -j names
// them) are rc_pingpong's RTR→RTS: timeout 14, retry_cnt 7, rnr_retry 7.
func rtsSetUp(attrs map[string]any) bool {
	return attrs["qp_state"] == "RTS" && attrs["timeout"] == 14.0 && attrs["retry_cnt"] == 7.0 && attrs["rnr_retry"] == 7.0
}

// TestResFollowTraced runs `verbscope res qp --follow -j` while an
// ibv_rc_pingpong pair sets up: each side's RTS line carries the
// attributes rc_pingpong set, traced from the kernel; Ctrl-C ends it
// with status 0.
func TestResFollowTraced(t *testing.T) {
	labkit.Clean(t)
	labkit.RaceBinary(t)
	f := labkit.Start(t, "verbscope", "res", "qp", "--follow", "-j")
	labkit.WaitFor(t, labkit.Attach, "res --follow tracing", func() bool {
		return strings.Contains(f.Output(), "res: tracing every process's QP modifies")
	})
	server, client := labkit.PingpongPair(t, "-g", labkit.Env(t, "LAB_GID_INDEX"), "-n", "5")
	client.Exit(t, labkit.Run)
	server.Exit(t, labkit.Run)
	pids := map[float64]bool{float64(server.PID()): false, float64(client.PID()): false}
	labkit.WaitFor(t, labkit.Step, "both sides' traced RTS lines", func() bool {
		for _, line := range strings.Split(f.Output(), "\n") {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			var ev struct {
				Event, State string
				Modify       *struct {
					PID   float64
					Comm  string
					Ret   float64
					Attrs map[string]any
				}
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("not JSON: %v: %s", err, line)
			}
			if ev.Event == "state" && ev.State == "RTS" && ev.Modify != nil && ev.Modify.Comm == "ibv_rc_pingpong" && ev.Modify.Ret == 0 && rtsSetUp(ev.Modify.Attrs) {
				if _, ok := pids[ev.Modify.PID]; ok {
					pids[ev.Modify.PID] = true
				}
			}
		}
		return pids[float64(server.PID())] && pids[float64(client.PID())]
	})
	if err := f.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := f.Exit(t, labkit.Run); code != 0 {
		t.Errorf("res qp --follow: status %d after Ctrl-C, want 0:\n%s", code, f.Output())
	}
}

// TestExportQPsTraced: while an ibv_rc_pingpong pair runs, each of its
// QPs in the exporter's /api/v1/qps has an RTS history entry whose
// modify carries timeout 14, retry_cnt 7 and rnr_retry 7.
func TestExportQPsTraced(t *testing.T) {
	labkit.Clean(t)
	labkit.RaceBinary(t)
	addr := "127.0.0.1:19879"
	// --api.sensitive: the traced attributes go only to authenticated
	// clients otherwise.
	x := labkit.Start(t, "verbscope", "export", "--web.listen-address="+addr, "--interval=500ms", "--api.sensitive")
	labkit.WaitFor(t, labkit.Attach, "the exporter tracing", func() bool {
		return strings.Contains(x.Output(), "QP modifies are traced")
	})
	server, client := labkit.PingpongPair(t, "-g", labkit.Env(t, "LAB_GID_INDEX"), "-e", "-n", "100000000")
	want := map[float64]bool{float64(server.PID()): false, float64(client.PID()): false}
	var body []byte
	labkit.WaitFor(t, labkit.Step, "both QPs' traced RTS in /api/v1/qps", func() bool {
		resp, err := http.Get("http://" + addr + "/api/v1/qps")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ = io.ReadAll(resp.Body)
		var qps []struct {
			PID     float64
			Comm    string
			History []struct {
				State  string
				Modify *struct {
					Ret   float64
					Attrs map[string]any
				}
			}
		}
		if json.Unmarshal(body, &qps) != nil {
			return false
		}
		for _, q := range qps {
			for _, h := range q.History {
				if _, ok := want[q.PID]; ok && h.State == "RTS" && h.Modify != nil && h.Modify.Ret == 0 && rtsSetUp(h.Modify.Attrs) {
					want[q.PID] = true
				}
			}
		}
		return want[float64(server.PID())] && want[float64(client.PID())]
	})
	t.Logf("/api/v1/qps: %.600s", body)
}
