//go:build vm

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/testcert"
	"github.com/verbscope/verbscope/lab"
)

// The fleet on real parts: verbscope export on both lab hosts (TLS and
// basic auth), an ibv_rc_pingpong pair on each, a verbs-shell QP moved to
// ERR on a (once Prometheus saw it in INIT), and Debian's Prometheus in a
// scraping both with
// the shipped rules (their for: shortened to 5s). cli/testdata/fleetpair
// waits in a for each outcome and writes report.json; this side judges it.
//
// Each pair is throttled as labkit.Throttle does in the lab tests (run
// 0.1 s a second, stopped the rest): the test needs their QPs in RTS,
// not their speed, and left to run they kept both guests' vCPUs busy for
// the whole test, taken from the lab suite's VM beside it on the host.
// A killed pair dies at its next 0.1 s, and its throttle ends with it.
const exportPairThrottle = `throttle() { while kill -CONT "$@" 2>/dev/null; do sleep 0.1; kill -STOP "$@" 2>/dev/null; sleep 0.9; done; }
`

const exportPairA = exportPairThrottle + `cd /tmp
verbscope export --web.listen-address=:9879 --interval=1s --web.config.file=/mnt/host/web.yml >/mnt/host/export-a.log 2>&1 &
ibv_rc_pingpong -g $LAB_GID_INDEX -e -n 1000000000 >/tmp/pp-server.log 2>&1 &
echo $! >>/tmp/workload.pids
sleep 2
ibv_rc_pingpong -g $LAB_GID_INDEX -e -n 1000000000 $LAB_IP >/tmp/pp-client.log 2>&1 &
echo $! >>/tmp/workload.pids
throttle $(cat /tmp/workload.pids) &
mkfifo /tmp/shell.in
verbscope shell </tmp/shell.in >/mnt/host/shell-a.log 2>&1 &
echo $! >>/tmp/workload.pids
(echo 'open; pd; cq; qp type=rc cq=cq1; next qp1'; while [ ! -e /tmp/go-err ]; do sleep 1; done; echo 'modify qp1 err'; sleep 100000) >/tmp/shell.in &
prometheus --config.file=/mnt/host/prometheus.yml --storage.tsdb.path=/tmp/prom --web.listen-address=127.0.0.1:9090 >/mnt/host/prometheus.log 2>&1 &
fleetpair -pass s3cret; st=$?
touch /mnt/host/done /mnt/host/end
exit $st
`

const exportPairB = exportPairThrottle + `cd /tmp
verbscope export --web.listen-address=:9879 --interval=1s --web.config.file=/mnt/host/web.yml >/mnt/host/export-b.log 2>&1 &
ibv_rc_pingpong -g $LAB_GID_INDEX -e -n 1000000000 >/tmp/pp-server.log 2>&1 &
p1=$!
sleep 2
ibv_rc_pingpong -g $LAB_GID_INDEX -e -n 1000000000 $LAB_IP >/tmp/pp-client.log 2>&1 &
p2=$!
throttle $p1 $p2 &
i=0
while [ ! -e /mnt/host/done ] && [ $i -lt 300 ]; do
  rdma -j resource show qp >/mnt/host/b-rdma.json.new && mv /mnt/host/b-rdma.json.new /mnt/host/b-rdma.json
  sleep 1; i=$((i+1))
done
kill $p1 $p2
while [ ! -e /mnt/host/end ] && [ $i -lt 360 ]; do sleep 1; i=$((i+1)); done
`

// Scrapes every 3 s: a TLS scrape of a 1-vCPU TCG guest busy with a
// ping-pong, on a loaded 2-core host, can take more than 1 s, and a
// timed-out scrape costs a new handshake the next time.
const exportPairProm = `global: {scrape_interval: 3s, scrape_timeout: 3s, evaluation_interval: 1s}
rule_files: [/mnt/host/rules.yml]
scrape_configs:
  - job_name: verbscope
    scheme: https
    tls_config: {ca_file: /mnt/host/cert.pem}
    basic_auth: {username: prometheus, password: s3cret}
    static_configs: [{targets: ["10.0.1.1:9879", "10.0.1.2:9879"]}]
`

// report is cli/testdata/fleetpair's Report, as far as judged here.
type fleetReport struct {
	RTS             map[string][2]int       `json:"rts"`
	ToErr           map[string]float64      `json:"to_err"`
	Alert           *struct{ State string } `json:"alert"`
	Dashboard       int                     `json:"dashboard_exprs"`
	DashboardErrors []string                `json:"dashboard_errors"`
	Unauth          int                     `json:"unauth_status"`
	Auth            int                     `json:"auth_status"`
	TargetB         string                  `json:"target_b_health"`
	AfterRC         map[string]float64      `json:"after_rc"`
	Err             string                  `json:"error"`
}

func TestExportFleetOnTwoHosts(t *testing.T) {
	dir := t.TempDir()
	bins := map[string]string{"verbscope": "..", "fleetpair": "./testdata/fleetpair"}
	var binPaths []string
	for name, pkg := range bins {
		p := filepath.Join(dir, "bin", name)
		if out, err := exec.Command("go", "build", "-o", p, pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
		binPaths = append(binPaths, p)
	}
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatalf("no prometheus on this host: make deps installs it (lab/packages.txt): %v", err)
	}
	binPaths = append(binPaths, prom)

	share := filepath.Join(dir, "share")
	os.MkdirAll(share, 0o755)
	testcert.WebConfig(t, share, "prometheus", "s3cret", net.IPv4(10, 0, 1, 1), net.IPv4(10, 0, 1, 2))
	rules, err := os.ReadFile("../deploy/verbscope.rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	dash, err := os.ReadFile("../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{
		"rules.yml":              bytes.ReplaceAll(rules, []byte("for: 5m"), []byte("for: 5s")),
		"prometheus.yml":         []byte(exportPairProm),
		"grafana-dashboard.json": dash,
	} {
		if err := os.WriteFile(filepath.Join(share, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cache := os.Getenv("VERBSCOPE_CACHE")
	if cache == "" {
		cache = filepath.Join("..", ".cache", "lab")
	}
	var out, log bytes.Buffer
	l, err := lab.New(context.Background(), &lab.Cache{Dir: cache}, lab.Options{
		Share: share, Bin: binPaths, Out: &out, Log: &log, Timeout: 8 * time.Minute,
	})
	if err != nil {
		t.Fatalf("the lab cannot start: %v", err)
	}
	code, err := l.RunPair(context.Background(), exportPairA, exportPairB)
	t.Logf("lab:\n%s\noutput:\n%s", log.String(), out.String())
	for _, f := range []string{"prometheus.log", "export-a.log", "export-b.log", "shell-a.log"} {
		if b, err := os.ReadFile(filepath.Join(share, f)); err == nil {
			t.Logf("%s:\n%s", f, tail(string(b), 2000))
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	var rep fleetReport
	b, err := os.ReadFile(filepath.Join(share, "report.json"))
	if err != nil {
		t.Fatalf("no report from the guest (status %d): %v", code, err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report.json: %v\n%s", err, b)
	}
	if code != 0 || rep.Err != "" {
		t.Fatalf("the guest side failed (status %d): %s\nreport: %s", code, rep.Err, b)
	}
	const a, bb = "10.0.1.1:9879", "10.0.1.2:9879"
	for _, inst := range []string{a, bb} {
		if got := rep.RTS[inst]; got[0] != got[1] || got[1] < 3 {
			t.Errorf("%s: verbscope_qps{state=RTS} %d, rdma counted %d (want equal, at least the pair and GSI)", inst, got[0], got[1])
		}
	}
	if rep.ToErr[a] < 1 || rep.ToErr[bb] != 0 {
		t.Errorf("transitions to ERR: %v, want at least 1 on a and none on b", rep.ToErr)
	}
	if rep.Alert == nil || rep.Alert.State != "firing" {
		t.Errorf("RDMAQPsInError for a: %+v, want firing", rep.Alert)
	}
	if rep.Dashboard < 10 || len(rep.DashboardErrors) > 0 {
		t.Errorf("dashboard: %d expressions, errors: %v", rep.Dashboard, rep.DashboardErrors)
	}
	if rep.Unauth != 401 || rep.Auth != 200 || !strings.HasPrefix(rep.TargetB, "up") {
		t.Errorf("TLS + basic auth: %d without credentials (want 401), %d with (want 200), Prometheus's scrapes: %q (want up)", rep.Unauth, rep.Auth, rep.TargetB)
	}
	if rep.AfterRC[a] != 0 || rep.AfterRC[bb] != 0 || len(rep.AfterRC) != 2 {
		t.Errorf("RC QPs after the workloads: %v, want both hosts present at 0", rep.AfterRC)
	}
	// promtool lints what the exporters served.
	for _, s := range []string{"scrape-a.txt", "scrape-b.txt"} {
		f, err := os.Open(filepath.Join(share, s))
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("promtool", "check", "metrics")
		cmd.Stdin = f
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("promtool check metrics %s: %v\n%s", s, err, out)
		}
		f.Close()
	}
	// verbscope fleet in a: both hosts, a first (its alert), with the counts.
	fleetText, _ := os.ReadFile(filepath.Join(share, "fleet.txt"))
	t.Logf("verbscope fleet:\n%s", fleetText)
	lines := strings.Split(strings.TrimSpace(string(fleetText)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], a) || !strings.HasPrefix(lines[2], bb) {
		t.Fatalf("verbscope fleet: want a header, then a (alerting) and b:\n%s", fleetText)
	}
	for _, want := range []string{" up ", "ERR 1", "RDMAQPsInError", "RDMAQPEnteredError"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("fleet row of a lacks %q: %s", want, lines[1])
		}
	}
	if !strings.Contains(lines[2], " up ") || !strings.Contains(lines[2], "RTS 3") || strings.Contains(lines[2], "ERR") || strings.Contains(lines[2], "RDMA") {
		t.Errorf("fleet row of b: want up, its ping-pong in RTS and no trouble: %s", lines[2])
	}
	// VERBSCOPE_RECORD_FLEET=DIR keeps what Prometheus answered fleet,
	// the replays of fleet's unit tests (fleet/testdata).
	if dst := os.Getenv("VERBSCOPE_RECORD_FLEET"); dst != "" {
		for _, f := range []string{"fleet-api.json", "fleet-after-api.json"} {
			b, err := os.ReadFile(filepath.Join(share, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, "lab-pair-"+f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
