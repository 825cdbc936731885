// Command fleetpair runs in lab VM a during the export/fleet pair test
// (cli/export_pair_vm_test.go): against the real Prometheus there, it
// waits for what the test asserts, records what it saw in a JSON report,
// and ends the workloads. The host side judges the report.
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/verbscope/verbscope/fleet"
)

// Report is what the host test judges.
type Report struct {
	// RTS is, per instance, verbscope_qps{state="RTS"} summed through
	// Prometheus and the RTS QPs `rdma -j resource show qp` listed there
	// at the same moment.
	RTS map[string][2]int `json:"rts"`
	// ToErr is verbscope_qp_transitions_total{to_state="ERR"} per
	// instance, through Prometheus.
	ToErr map[string]float64 `json:"to_err"`
	// Alert is the RDMAQPsInError alert as /api/v1/alerts gave it.
	Alert *fleet.Alert `json:"alert"`
	// Dashboard counts the dashboard's expressions and lists those that
	// failed to evaluate.
	Dashboard       int      `json:"dashboard_exprs"`
	DashboardErrors []string `json:"dashboard_errors"`
	// Unauth and Auth are the HTTP statuses of a scrape of b's exporter
	// (TLS and basic auth) without and with the credentials.
	Unauth int `json:"unauth_status"`
	Auth   int `json:"auth_status"`
	// TargetB is Prometheus's health of the TLS target.
	TargetB string `json:"target_b_health"`
	// AfterRC is, per instance, the RC QPs in any state after the
	// workloads ended (series present, at 0).
	AfterRC map[string]float64 `json:"after_rc"`
	Log     []string           `json:"log"`
	Err     string             `json:"error,omitempty"`
}

var (
	prom      = flag.String("prom", "http://127.0.0.1:9090", "Prometheus")
	instA     = flag.String("a", "10.0.1.1:9879", "a's exporter")
	instB     = flag.String("b", "10.0.1.2:9879", "b's exporter")
	ca        = flag.String("ca", "/mnt/host/cert.pem", "the CA of both exporters (TLS and basic auth)")
	user      = flag.String("user", "prometheus", "basic auth user")
	pass      = flag.String("pass", "", "basic auth password")
	out       = flag.String("out", "/mnt/host", "where the report and the recordings go")
	dashboard = flag.String("dashboard", "/mnt/host/grafana-dashboard.json", "the Grafana dashboard")
	pids      = flag.String("pids", "/tmp/workload.pids", "the pids of a's workloads, one a line")
	goErr     = flag.String("go-err", "/tmp/go-err", "the file that tells a's shell to move its QP to ERR")
	timeout   = flag.Duration("timeout", 150*time.Second, "for each wait")
)

var (
	rep   = Report{RTS: map[string][2]int{}, ToErr: map[string]float64{}, AfterRC: map[string]float64{}}
	start = time.Now()
	ctx   = context.Background()
	cl    = &fleet.Client{URL: "", HTTP: &http.Client{Timeout: 20 * time.Second}}
)

func logf(format string, args ...any) {
	line := fmt.Sprintf("%6.1fs ", time.Since(start).Seconds()) + fmt.Sprintf(format, args...)
	fmt.Println(line)
	rep.Log = append(rep.Log, line)
}

func main() {
	flag.Parse()
	cl.URL = *prom
	err := run()
	if err != nil {
		rep.Err = err.Error()
		logf("error: %v", err)
	}
	b, _ := json.MarshalIndent(&rep, "", "  ")
	if werr := os.WriteFile(filepath.Join(*out, "report.json"), b, 0o644); werr != nil {
		fmt.Println(werr)
		os.Exit(1)
	}
	if err != nil {
		os.Exit(1)
	}
}

// waitFor polls cond every half second until it holds.
func waitFor(what string, cond func() (bool, error)) error {
	deadline := time.Now().Add(*timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := cond()
		if ok {
			logf("%s", what)
			return nil
		}
		last = err
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("waited %v for %s (last error: %v)", *timeout, what, last)
}

// byInstance evaluates expr and returns its value per instance.
func byInstance(expr string) (map[string]float64, error) {
	s, err := cl.Query(ctx, expr)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for _, x := range s {
		m[x.Labels["instance"]] = x.Value
	}
	return m, nil
}

// rdmaRTS counts the RTS QPs in `rdma -j resource show qp` output.
func rdmaRTS(b []byte) (int, error) {
	var qps []struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal(b, &qps); err != nil {
		return 0, err
	}
	n := 0
	for _, q := range qps {
		if q.State == "RTS" {
			n++
		}
	}
	return n, nil
}

func run() error {
	if err := waitFor("prometheus ready", func() (bool, error) {
		r, err := http.Get(*prom + "/-/ready")
		if err != nil {
			return false, err
		}
		r.Body.Close()
		return r.StatusCode == 200, nil
	}); err != nil {
		return err
	}
	if err := waitFor("both targets up", func() (bool, error) {
		up, err := byInstance(`up{job="verbscope"}`)
		return err == nil && up[*instA] == 1 && up[*instB] == 1, err
	}); err != nil {
		return err
	}
	// QPs in RTS through Prometheus against rdma on each host. The
	// ping-pongs keep their states, so once the scrapes caught up the two
	// agree; b writes its rdma output into the share every second.
	if err := waitFor("verbscope_qps{state=RTS} equals rdma's count on both hosts", func() (bool, error) {
		ra, err := exec.Command("rdma", "-j", "resource", "show", "qp").Output()
		if err != nil {
			return false, err
		}
		na, err := rdmaRTS(ra)
		if err != nil {
			return false, err
		}
		rb, err := os.ReadFile(filepath.Join(*out, "b-rdma.json"))
		if err != nil {
			return false, err
		}
		nb, err := rdmaRTS(rb)
		if err != nil {
			return false, err
		}
		got, err := byInstance(`sum by (instance) (verbscope_qps{job="verbscope",state="RTS"})`)
		if err != nil {
			return false, err
		}
		rep.RTS[*instA] = [2]int{int(got[*instA]), na}
		rep.RTS[*instB] = [2]int{int(got[*instB]), nb}
		// Each host runs a ping-pong pair: its two RC QPs and the GSI QP.
		return na >= 3 && nb >= 3 && int(got[*instA]) == na && int(got[*instB]) == nb, nil
	}); err != nil {
		return err
	}
	// The shell on a holds an RC QP in INIT; once Prometheus has it from
	// the exporter, the shell moves it to ERR, so the Tracker sees the
	// change whatever the load.
	if err := waitFor("the shell's QP in INIT through Prometheus", func() (bool, error) {
		m, err := byInstance(`sum by (instance) (verbscope_qps{type="RC",state="INIT"})`)
		return err == nil && m[*instA] >= 1, err
	}); err != nil {
		return err
	}
	if err := os.WriteFile(*goErr, nil, 0o644); err != nil {
		return err
	}
	if err := waitFor("the transition to ERR counted on a", func() (bool, error) {
		m, err := byInstance(`sum by (instance) (verbscope_qp_transitions_total{to_state="ERR"})`)
		rep.ToErr = m
		return err == nil && m[*instA] >= 1, err
	}); err != nil {
		return err
	}
	if err := waitFor("RDMAQPsInError firing for a", func() (bool, error) {
		as, err := cl.Alerts(ctx)
		for _, a := range as {
			if a.Labels["alertname"] == "RDMAQPsInError" && a.Labels["instance"] == *instA {
				a := a
				rep.Alert = &a
				if a.State == "firing" {
					return true, nil
				}
			}
		}
		return false, err
	}); err != nil {
		return err
	}
	if err := fleetView("fleet"); err != nil {
		return err
	}
	if err := checkDashboard(); err != nil {
		return err
	}
	if err := checkTLS(); err != nil {
		return err
	}
	if err := endWorkloads(); err != nil {
		return err
	}
	if err := waitFor("the RC series back to 0 on both hosts", func() (bool, error) {
		m, err := byInstance(`sum by (instance) (verbscope_qps{job="verbscope",type="RC"})`)
		rep.AfterRC = m
		a, okA := m[*instA]
		b, okB := m[*instB]
		return err == nil && okA && okB && a == 0 && b == 0, err
	}); err != nil {
		return err
	}
	return fleetView("fleet-after")
}

// fleetView runs `verbscope fleet`, text and JSON, into the share, and
// records every API answer fleet got (fleet/testdata's replays).
func fleetView(name string) error {
	// A scrape that timed out under the emulator's load makes a host
	// "down" for a moment (up is 0, its series go stale): keep the first
	// view that shows both hosts up with their device.
	var text []byte
	if err := waitFor("verbscope fleet shows both hosts up", func() (bool, error) {
		b, err := exec.Command("verbscope", "fleet", "--prometheus", *prom).CombinedOutput()
		if err != nil {
			return false, fmt.Errorf("verbscope fleet: %v: %s", err, b)
		}
		text = b
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		ok := len(lines) == 3
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			ok = ok && len(f) > 2 && f[1] == "up" && f[2] == "1"
		}
		return ok, nil
	}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, name+".txt"), text, 0o644); err != nil {
		return err
	}
	if b, err := exec.Command("verbscope", "fleet", "--prometheus", *prom, "-j").CombinedOutput(); err != nil {
		return fmt.Errorf("verbscope fleet -j: %v\n%s", err, b)
	} else if err := os.WriteFile(filepath.Join(*out, name+".json"), b, 0o644); err != nil {
		return err
	}
	var rec fleet.Replay
	c := *cl
	c.Tap = func(path string, q url.Values, body []byte) {
		rec = append(rec, fleet.Answer{Path: path, Query: q.Get("query"), Body: json.RawMessage(body)})
	}
	if err := waitFor("a recording of fleet's answers with both hosts up", func() (bool, error) {
		rec = nil
		hs, err := fleet.Rows(ctx, &c, "verbscope")
		ok := err == nil && len(hs) == 2
		for _, h := range hs {
			ok = ok && h.Up && h.Devices == 1
		}
		return ok, err
	}); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(rec, "", " ")
	logf("verbscope fleet ran; %d API answers recorded", len(rec))
	return os.WriteFile(filepath.Join(*out, name+"-api.json"), b, 0o644)
}

// checkDashboard evaluates every expression of the Grafana dashboard, its
// variables replaced by "match all".
func checkDashboard() error {
	b, err := os.ReadFile(*dashboard)
	if err != nil {
		return err
	}
	var d struct {
		Panels []struct {
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return err
	}
	all := strings.NewReplacer("$host", ".*", "$device", ".*", "$port", ".*")
	rep.DashboardErrors = []string{}
	for _, p := range d.Panels {
		for _, t := range p.Targets {
			rep.Dashboard++
			if _, err := cl.Query(ctx, all.Replace(t.Expr)); err != nil {
				rep.DashboardErrors = append(rep.DashboardErrors, err.Error())
			}
		}
	}
	logf("dashboard: %d expressions, %d errors", rep.Dashboard, len(rep.DashboardErrors))
	return nil
}

// checkTLS scrapes b's exporter without and with the credentials, saves a
// scrape of each exporter, and asks Prometheus how its scrapes of b go.
func checkTLS() error {
	pem, err := os.ReadFile(*ca)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	hc := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	// A connection cut under the emulator's load is tried again; the
	// statuses are what is judged.
	scrape := func(inst string, auth bool) (code int, body []byte, err error) {
		for try := 0; try < 5; try++ {
			req, _ := http.NewRequest(http.MethodGet, "https://"+inst+"/metrics", nil)
			if auth {
				req.SetBasicAuth(*user, *pass)
			}
			var r *http.Response
			if r, err = hc.Do(req); err == nil {
				body, err = io.ReadAll(r.Body)
				r.Body.Close()
				if err == nil {
					return r.StatusCode, body, nil
				}
			}
			logf("scrape %s over TLS, try %d: %v", inst, try+1, err)
			time.Sleep(time.Second)
		}
		return 0, nil, fmt.Errorf("scrape %s over TLS: %w", inst, err)
	}
	if rep.Unauth, _, err = scrape(*instB, false); err != nil {
		return err
	}
	for name, inst := range map[string]string{"scrape-a.txt": *instA, "scrape-b.txt": *instB} {
		code, body, err := scrape(inst, true)
		if err != nil {
			return err
		}
		if inst == *instB {
			rep.Auth = code
		}
		if err := os.WriteFile(filepath.Join(*out, name), body, 0o644); err != nil {
			return err
		}
	}
	// Prometheus scrapes b with the CA and the credentials; under the
	// emulator's load one scrape may time out, so wait for a healthy one.
	if err := waitFor("Prometheus's last scrape of b healthy", func() (bool, error) {
		r, err := http.Get(*prom + "/api/v1/targets")
		if err != nil {
			return false, err
		}
		defer r.Body.Close()
		var t struct {
			Data struct {
				ActiveTargets []struct {
					Labels    map[string]string `json:"labels"`
					Health    string            `json:"health"`
					LastError string            `json:"lastError"`
				} `json:"activeTargets"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&t); err != nil {
			return false, err
		}
		for _, at := range t.Data.ActiveTargets {
			if at.Labels["instance"] == *instB {
				rep.TargetB = strings.TrimSpace(at.Health + " " + at.LastError)
			}
		}
		return rep.TargetB == "up", nil
	}); err != nil {
		return err
	}
	logf("TLS: %d without credentials, %d with; Prometheus's scrapes of b: %s", rep.Unauth, rep.Auth, rep.TargetB)
	return nil
}

// endWorkloads kills a's ping-pongs and shell and tells b to end its own.
func endWorkloads() error {
	b, err := os.ReadFile(*pids)
	if err != nil {
		return err
	}
	ps := strings.Fields(string(b))
	for _, p := range ps {
		exec.Command("kill", p).Run()
	}
	// What SIGTERM did not end within 5 s gets SIGKILL (the kernel then
	// destroys its objects), and the report says so.
	time.Sleep(5 * time.Second)
	for _, p := range ps {
		if exec.Command("kill", "-0", p).Run() == nil {
			logf("pid %s survived SIGTERM for 5 s: %s; SIGKILL", p, comm(p))
			exec.Command("kill", "-9", p).Run()
		}
	}
	logf("workloads on a ended (%s); telling b", strings.Join(ps, " "))
	return os.WriteFile(filepath.Join(*out, "done"), nil, 0o644)
}

func comm(pid string) string {
	b, _ := os.ReadFile("/proc/" + pid + "/comm")
	return strings.TrimSpace(string(b))
}
