package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/charmbracelet/x/exp/golden"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// replay answers with testdata/NAME, recorded from the real Prometheus
// of the lab's pair test (cli/testdata/fleetpair); a request never
// recorded fails.
func replay(t *testing.T, name string) *Client {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var rec Replay
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	return &Client{URL: "http://prometheus.recorded", HTTP: &http.Client{Transport: rec}}
}

// TestRowsFromTheLab replays what the lab's Prometheus answered while a
// had a QP in ERR (and the alerts on it) and b was clean, then after the
// workloads ended.
func TestRowsFromTheLab(t *testing.T) {
	const a, b = "10.0.1.1:9879", "10.0.1.2:9879"
	for _, tc := range []struct {
		name, rec string
		check     func(t *testing.T, hs []Host)
	}{
		{"during", "lab-pair-fleet-api.json", func(t *testing.T, hs []Host) {
			if hs[0].Instance != a || hs[1].Instance != b {
				t.Fatalf("order %s, %s: want a (alerting) first", hs[0].Instance, hs[1].Instance)
			}
			if hs[0].Failed != 1 || hs[0].QPs["ERR"] != 1 || hs[0].ToErr < 1 || len(hs[0].Alerts) == 0 {
				t.Errorf("a: %+v, want 1 QP in ERR, a transition and alerts", hs[0])
			}
			if hs[1].Failed != 0 || hs[1].ToErr != 0 || len(hs[1].Alerts) != 0 || hs[1].QPs["RTS"] < 3 {
				t.Errorf("b: %+v, want clean with its ping-pong in RTS", hs[1])
			}
		}},
		{"after", "lab-pair-fleet-after-api.json", func(t *testing.T, hs []Host) {
			for _, h := range hs {
				if !h.Up || h.Devices != 1 || h.PortsUp != 1 || h.QPs["ERR"] != 0 {
					t.Errorf("%s after the workloads: %+v", h.Instance, h)
				}
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs, err := Rows(context.Background(), replay(t, tc.rec), "verbscope")
			if err != nil {
				t.Fatal(err)
			}
			if len(hs) != 2 {
				t.Fatalf("%d hosts, want 2: %+v", len(hs), hs)
			}
			tc.check(t, hs)
			var buf bytes.Buffer
			if err := WriteText(&buf, hs); err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, buf.Bytes()) // testdata/TestRowsFromTheLab/NAME.golden
		})
	}
}

func TestWorstFirst(t *testing.T) {
	hs := []Host{
		{Instance: "e"}, {Instance: "d", ErrorRate: 0.5}, {Instance: "c", Stuck: 1},
		{Instance: "b", Failed: 2}, {Instance: "a2", Alerts: []string{"X"}}, {Instance: "z", Up: false},
	}
	for i := range hs[:5] {
		hs[i].Up = true
	}
	var got []string
	for i := range hs {
		for j := range hs {
			if worse(&hs[i], &hs[j]) == worse(&hs[j], &hs[i]) && i != j {
				t.Errorf("%s and %s: no strict order", hs[i].Instance, hs[j].Instance)
			}
		}
	}
	sortHosts(hs)
	for _, h := range hs {
		got = append(got, h.Instance)
	}
	if d := cmp.Diff([]string{"z", "a2", "b", "c", "d", "e"}, got); d != "" {
		t.Errorf("order (-want +got):\n%s", d)
	}
}

func TestClientErrors(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		status     int
		want       string
		api        bool
	}{
		{"bad query", `{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, 400, "bad_data: parse error", true},
		{"not prometheus", `<html>proxy login</html>`, 200, "not the Prometheus API", false},
		{"a matrix", `{"status":"success","data":{"resultType":"matrix","result":[]}}`, 200, "not an instant vector", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			_, err := (&Client{URL: srv.URL}).Query(context.Background(), "up")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if errors.Is(err, ErrAPI) != tc.api {
				t.Errorf("errors.Is(err, ErrAPI) = %v, want %v", !tc.api, tc.api)
			}
		})
	}
	_, err := (&Client{URL: "http://127.0.0.1:1"}).Alerts(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is it up?") {
		t.Errorf("no server: %v", err)
	}
}

// TestQPsByState: the states in the vocabulary's order, empty ones left
// out, a label the vocabulary does not know ignored.
func TestQPsByState(t *testing.T) {
	for _, tc := range []struct {
		qps  map[string]int
		want []string
	}{
		{map[string]int{"ERR": 1, "RTS": 3, "RESET": 0, "SQE": 2}, []string{"RTS 3", "SQE 2", "ERR 1"}},
		{map[string]int{"RESET": 0, "BOGUS": 4}, nil},
	} {
		h := Host{QPs: tc.qps}
		if d := cmp.Diff(tc.want, h.QPsByState()); d != "" {
			t.Errorf("%v (-want +got):\n%s", tc.qps, d)
		}
	}
}
