//go:build lab

package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
)

// verbscopeRes runs the verbscope binary that labtest put on the guest's
// PATH: `verbscope res ARGS...`.
func verbscopeRes(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("verbscope", append([]string{"res"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr // notes such as "no QP matches" go there, not into the JSON
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("verbscope res %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
	}
	return out
}

func rdmaTool(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("rdma", args...).Output()
	if err != nil {
		t.Fatalf("rdma %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func parse(t *testing.T, b []byte) []oracle.RdmaObject {
	t.Helper()
	o, err := oracle.ParseRdmaJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// sameAsRdma compares `verbscope res ARGS -j` with `rdma -j resource show
// ARGS` read just before and after (oracle.CompareRdmaJSON), retrying
// while the system changes under the comparison.
func sameAsRdma(t *testing.T, args ...string) {
	t.Helper()
	var err error
	for try := 0; try < 10; try++ {
		before := parse(t, rdmaTool(t, append([]string{"-j", "resource", "show"}, args...)...))
		got := parse(t, verbscopeRes(t, append(append([]string{}, args...), "-j")...))
		after := parse(t, rdmaTool(t, append([]string{"-j", "resource", "show"}, args...)...))
		err = oracle.CompareRdmaJSON(before, got, after)
		var u *oracle.Unstable
		if !errors.As(err, &u) {
			break
		}
	}
	if err != nil {
		t.Errorf("verbscope res %s -j: %v", strings.Join(args, " "), err)
	}
}

// qpStates returns the states of a process's QPs as rdma lists them.
func qpStates(t *testing.T, pid uint32) []string {
	var out []string
	for _, o := range parse(t, labkit.RdmaJSON(t, "qp")) {
		if o.Values["pid"] != nil && o.Values["pid"].(interface{ String() string }).String() == strconv.Itoa(int(pid)) {
			out = append(out, o.Values["state"].(string))
		}
	}
	return out
}

// TestResMatchesRdma checks the verbscope binary against iproute2 in the
// lab: JSON for every kind, the text view, and iproute2's filters, while
// an ibv_rc_pingpong server waits (QP in INIT), while the pair runs (RTS),
// and after both were killed (QPs gone).
func TestResMatchesRdma(t *testing.T) {
	labkit.Clean(t)
	gid, ip := labkit.Env(t, "LAB_GID_INDEX"), labkit.Env(t, "LAB_IP")
	labkit.WaitFor(t, labkit.Step, "an idle device", func() bool {
		return len(parse(t, labkit.RdmaJSON(t, "ctx"))) == 0
	})
	kinds := [][]string{{}, {"qp"}, {"cq"}, {"mr"}, {"pd"}, {"ctx"}, {"srq"}, {"cm_id"}}
	srv := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000")
	labkit.WaitFor(t, labkit.Step, "the server's QP in INIT", func() bool {
		s := qpStates(t, srv.PID())
		return len(s) == 1 && s[0] == "INIT"
	})
	for _, k := range kinds {
		sameAsRdma(t, k...)
	}
	pid := strconv.Itoa(int(srv.PID()))
	for _, f := range [][]string{{"qp", "pid", pid}, {"qp", "lqpn", "0-20"}, {"qp", "state", "INIT"},
		{"qp", "type", "GSI"}, {"qp", "link", "rxe0/1"}, {"cq", "pid", pid}, {"pd", "dev", "rxe0"}, {"mr", "pid", pid}} {
		sameAsRdma(t, f...)
	}
	// Nothing moves in INIT: the text view equals rdma's, lines and all
	// (iproute2 ends each line with a blank), but for our "tgid N" after
	// "pid N": the pingpong is single-threaded, so N is its pid.
	for _, k := range [][]string{{}, {"qp"}, {"cq"}, {"mr"}, {"pd"}, {"ctx"}} {
		want := strings.ReplaceAll(string(rdmaTool(t, append([]string{"resource", "show"}, k...)...)), " \n", "\n")
		got := string(verbscopeRes(t, k...))
		if n := strings.Count(got, " tgid "); n != strings.Count(got, " pid ") {
			t.Errorf("verbscope res %v: %d tgid for %d pid:\n%s", k, n, strings.Count(got, " pid "), got)
		}
		got = strings.ReplaceAll(got, " pid "+pid+" tgid "+pid+" ", " pid "+pid+" ")
		if got != want {
			t.Errorf("verbscope res %v:\n%s\nrdma resource show %v:\n%s", k, got, k, want)
		}
	}

	cli := labkit.Start(t, "ibv_rc_pingpong", "-e", "-g", gid, "-n", "100000000", ip)
	labkit.WaitFor(t, labkit.Step, "both QPs in RTS", func() bool {
		s, c := qpStates(t, srv.PID()), qpStates(t, cli.PID())
		return len(s) == 1 && s[0] == "RTS" && len(c) == 1 && c[0] == "RTS"
	})
	// Once while the PSNs move (sameAsRdma retries until a reading holds
	// still between two of rdma's), then with the pair stopped: each of
	// those comparisons is then one try instead of up to ten, each try
	// three process starts under TCG.
	sameAsRdma(t, "qp")
	for _, p := range []*labkit.Proc{srv, cli} {
		if err := p.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range kinds {
		sameAsRdma(t, k...)
	}
	sameAsRdma(t, "qp", "state", "RTS", "type", "RC")

	cli.Kill()
	srv.Kill()
	labkit.WaitFor(t, labkit.Step, "the pingpong QPs to go", func() bool {
		return len(qpStates(t, srv.PID())) == 0 && len(qpStates(t, cli.PID())) == 0
	})
	for _, k := range kinds {
		sameAsRdma(t, k...)
	}
	// A valid filter that matches nothing: [] on stdout, and stderr says so.
	var stderr bytes.Buffer
	res := exec.Command("verbscope", "res", "qp", "pid", pid, "-j")
	res.Stderr = &stderr
	out, err := res.Output()
	if err != nil || !bytes.Equal(bytes.TrimSpace(out), []byte("[]")) || !strings.Contains(stderr.String(), "no qp matches pid="+pid) {
		t.Errorf("QPs of a dead process: %v, stdout %s, stderr %s", err, out, stderr.String())
	}
}
