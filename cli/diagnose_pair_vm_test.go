//go:build vm

package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/diagnose"
)

// The diagnosis on real parts: two lab hosts joined by a wire, each
// running verbscope export (--api.sensitive, a reading a second), and
// a driving one scenario after another on both with verbs shells and
// ibv_rc_pingpong (testdata/diagnosepair/a.sh; b runs the steps a hands
// it). Each scenario's `verbscope diagnose -j --readings 5 --interval
// 1s` (a verdict within 5 readings: a stall is judged at the fourth)
// is judged here: the cause and the peer's facts on the side(s) that can
// know, and no verdict at all for a busy pair and an idle one.
func TestDiagnoseOnTwoHosts(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "verbscope")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "diagnosepair", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("testdata/diagnosepair: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, filepath.Base(f)), b, 0o644)
	}
	l, out, log := pairLab(t, dir, bin, 20*time.Minute)
	code, err := l.RunPair(context.Background(), "sh /mnt/host/a.sh", "sh /mnt/host/b.sh")
	t.Logf("lab:\n%s\noutput:\n%s", log.String(), out.String())
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		t.Fatalf("a scenario failed to run, status %d", code)
	}
	p := pairResults{t: t, dir: dir}
	defer p.logOnFailure()

	// No verdict for a pair at work, nor for a connected pair at rest.
	for _, name := range []string{"busy-a", "busy-b", "idle-a", "idle-b"} {
		if rc, vs := p.verdicts(name); rc != 0 || len(vs) != 0 {
			t.Errorf("%s: status %d, verdicts %s; want 0 and none", name, rc, summaries(vs))
		}
	}

	// rnr: a's QP retries forever (rnr_retry 7); b's, which refuses, is
	// not stuck.
	bRNR := p.rcQP("rnr-b-qps")
	v := p.one("rnr-a", diagnose.CauseRNR, diagnose.Probable)
	p.peer("rnr-a", v, bRNR, "RTS")
	if v != nil && int(v.LQPN) != p.rcQP("rnr-a-qps") {
		t.Errorf("rnr-a: the verdict is on qp %d, not a's RC QP %d", v.LQPN, p.rcQP("rnr-a-qps"))
	}
	if rc, vs := p.verdicts("rnr-b"); rc != 0 || len(vs) != 0 {
		t.Errorf("rnr-b: status %d, verdicts %s; want none on the side that refuses", rc, summaries(vs))
	}
	// a's exporter traced the QP's connect: it asked b's exporter by the
	// destination GID, so its verdict is certain.
	p.api("rnr-a-api", p.rcQP("rnr-a-qps"), diagnose.CauseRNR, diagnose.Certain)

	// peer_gone: b's shell killed; b's exporter lists the QP destroyed.
	v = p.one("gone-a", diagnose.CausePeerGone, diagnose.Probable)
	if v != nil && (v.Peer == nil || !v.Peer.Gone || int(v.Peer.LQPN) != bRNR) {
		t.Errorf("gone-a: peer %+v, want b's qp %d, gone", v.Peer, bRNR)
	}
	p.api("gone-a-api", p.rcQP("gone-a-qps"), diagnose.CausePeerGone, diagnose.Certain)

	// peer_not_ready: b's QP back in INIT, then one in ERR.
	p.peer("init-a", p.one("init-a", diagnose.CausePeerNotReady, diagnose.Probable), -1, "INIT")
	p.peer("err-a", p.one("err-a", diagnose.CausePeerNotReady, diagnose.Probable), -1, "ERR")
	p.one("err-b", diagnose.CauseFlushed, diagnose.Certain)

	// remote_access: a's RDMA write with a bad rkey.
	p.peer("remote-a", p.one("remote-a", diagnose.CauseRemoteAccess, diagnose.Probable), -1, "ERR")

	// wrong_destination: judged by a's exporter, which knows the GID
	// (trace) and asks that host; diagnose, without trace, searches the
	// peers by numbers and can only say nobody answers for qp 9999.
	p.api("wrong-a-api", p.rcQP("wrong-a-qps"), diagnose.CauseWrongDestination, diagnose.Certain)
	if v := p.one("wrong-a", diagnose.CauseNoResponse, diagnose.Probable); v != nil && !strings.Contains(strings.Join(v.Evidence, "\n"), "no QP numbered 9999") {
		t.Errorf("wrong-a: the evidence does not say qp 9999 is nowhere:\n%s", strings.Join(v.Evidence, "\n"))
	}

	// b's exporter stopped: the local verdict, probable, the silence a
	// fact of it.
	for _, tc := range []struct {
		name  string
		cause diagnose.Cause
	}{{"rnr-noexp-a", diagnose.CauseRNR}, {"gone-noexp-a", diagnose.CauseNoResponse}} {
		v := p.one(tc.name, tc.cause, diagnose.Probable)
		if v != nil && (v.Peer != nil || !strings.Contains(strings.Join(v.Evidence, "\n"), "the peer's exporter did not answer")) {
			t.Errorf("%s: peer %+v, evidence:\n%s\nwant no peer and the exporter's silence", tc.name, v.Peer, strings.Join(v.Evidence, "\n"))
		}
	}

	// link_down: b's netdev down, b's QP waiting.
	p.one("link-b", diagnose.CauseLinkDown, diagnose.Certain)
	p.one("link-a", diagnose.CauseNoResponse, diagnose.Probable)
}

// pairResults reads what the scenarios left in the shared folder.
type pairResults struct {
	t   *testing.T
	dir string
}

func (p pairResults) read(name string) []byte {
	b, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		p.t.Errorf("%s: %v (the scenario did not run to it)", name, err)
	}
	return b
}

// logOnFailure logs what the shells and the steps on b said, when a
// check failed.
func (p pairResults) logOnFailure() {
	if !p.t.Failed() {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(p.dir, "*.log"))
	errs, _ := filepath.Glob(filepath.Join(p.dir, "*.err"))
	for _, f := range append(logs, errs...) {
		b, _ := os.ReadFile(f)
		p.t.Logf("%s:\n%s", filepath.Base(f), b)
	}
}

// verdicts are a diagnose run's status and verdicts.
func (p pairResults) verdicts(name string) (int, []diagnose.Verdict) {
	rc, err := strconv.Atoi(strings.TrimSpace(string(p.read(name + ".rc"))))
	if err != nil {
		return -1, nil
	}
	var vs []diagnose.Verdict
	if err := json.Unmarshal(p.read(name+".json"), &vs); err != nil {
		p.t.Errorf("%s: not a JSON list of verdicts: %v\nstderr: %s", name, err, p.read(name+".err"))
	}
	return rc, vs
}

// one checks that a run found exactly one QP needing a look, with cause
// and certainty, and returns its verdict.
func (p pairResults) one(name string, cause diagnose.Cause, c diagnose.Certainty) *diagnose.Verdict {
	rc, vs := p.verdicts(name)
	if rc != 3 || len(vs) != 1 {
		p.t.Errorf("%s: status %d, verdicts %s; want 3 and one %s", name, rc, summaries(vs), cause)
		if len(vs) == 0 {
			return nil
		}
	}
	v := &vs[0]
	if v.Cause != cause || v.Certainty != c {
		p.t.Errorf("%s: %s %s, want %s %s\n%s", name, v.Cause, v.Certainty, cause, c, strings.Join(v.Lines(), "\n"))
	}
	if len(v.Evidence) == 0 || len(v.Fix) == 0 {
		p.t.Errorf("%s: a verdict without evidence or fix: %+v", name, v)
	}
	return v
}

// peer checks the verdict's peer: b's QP lqpn (any when -1) in state.
func (p pairResults) peer(name string, v *diagnose.Verdict, lqpn int, state string) {
	if v == nil {
		return
	}
	q := v.Peer
	if q == nil {
		p.t.Errorf("%s: no peer in the verdict, want b's QP in %s", name, state)
		return
	}
	// A QP moved back to INIT has no remote number any more.
	connected := state != "INIT"
	if q.Host != "10.0.1.2:9879" || q.State != state || (lqpn >= 0 && q.LQPN != uint32(lqpn)) || (connected && q.RQPN != v.LQPN) || q.Comm != "verbscope" || q.PID == 0 {
		p.t.Errorf("%s: peer %+v, want 10.0.1.2:9879's qp %d (remote qp %d) of verbscope in %s", name, *q, lqpn, v.LQPN, state)
	}
}

// rcQP is the number of the one RC QP an `rdma -j res show qp` lists.
func (p pairResults) rcQP(name string) int {
	var qps []struct {
		LQPN int    `json:"lqpn"`
		Type string `json:"type"`
	}
	json.Unmarshal(p.read(name+".json"), &qps)
	n := -1
	for _, q := range qps {
		if q.Type == "RC" {
			if n >= 0 {
				p.t.Errorf("%s: more than one RC QP: %+v", name, qps)
			}
			n = q.LQPN
		}
	}
	if n < 0 {
		p.t.Errorf("%s: no RC QP: %+v", name, qps)
	}
	return n
}

// api checks the verdict a's exporter serves for QP lqpn.
func (p pairResults) api(name string, lqpn int, cause diagnose.Cause, c diagnose.Certainty) {
	var qps []struct {
		LQPN    int               `json:"lqpn"`
		Verdict *diagnose.Verdict `json:"verdict"`
	}
	if err := json.Unmarshal(p.read(name+".json"), &qps); err != nil {
		p.t.Errorf("%s: %v", name, err)
	}
	for _, q := range qps {
		if q.LQPN != lqpn {
			continue
		}
		if v := q.Verdict; v == nil || v.Cause != cause || v.Certainty != c {
			p.t.Errorf("%s: qp %d's verdict %+v, want %s %s", name, lqpn, v, cause, c)
		}
		return
	}
	p.t.Errorf("%s: no qp %d", name, lqpn)
}

func summaries(vs []diagnose.Verdict) string {
	var s []string
	for i := range vs {
		s = append(s, vs[i].Summary())
	}
	return "[" + strings.Join(s, "; ") + "]"
}
