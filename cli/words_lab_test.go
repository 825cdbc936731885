//go:build lab

package cli

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
)

// tgidRE is the owning process verbscope adds after iproute2's pid.
var tgidRE = regexp.MustCompile(`( pid \d+) tgid \d+`)

// withoutTGID is verbscope's text as iproute2 prints it.
func withoutTGID(s string) string { return tgidRE.ReplaceAllString(s, "$1") }

// In the lab, on the live rxe0 with an ibv_rc_pingpong server waiting
// (its QP in INIT, so nothing moves): every form of the grammar prints
// what the dev/link form prints, res agrees with iproute2 on the same
// forms, and what cannot mean anything exits 2.
func TestLabGrammar(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	gid := labkit.Env(t, "LAB_GID_INDEX")
	srv := labkit.Start(t, "ibv_rc_pingpong", "-g", gid, "-n", "100000")
	labkit.WaitFor(t, labkit.Step, "the server's QP in INIT", func() bool {
		s := qpStates(t, srv.PID())
		return len(s) == 1 && s[0] == "INIT"
	})
	link := dev + "/1"
	for _, tc := range []struct {
		canonical []string
		forms     [][]string
		rdma      []string // iproute2's command for the same lines, when there is one
	}{
		{[]string{"res", "qp", "dev", dev}, [][]string{{"res", "qp", dev}, {"res", "qp", "link", dev}, {"res", "show", "qp", "dev=" + dev}},
			[]string{"resource", "show", "qp", "link", dev}},
		{[]string{"res", "qp", "link", link}, [][]string{{"res", "qp", link}, {"res", "qp", "dev", dev, "port", "1"}, {"res", "qp", "link=" + link}},
			[]string{"resource", "show", "qp", "link", link}},
		{[]string{"res", "qp", "link", link, "-j"}, [][]string{{"res", "qp", link, "--json"}, {"res", "-j", "qp", link}},
			[]string{"-j", "resource", "show", "qp", "link", link}},
		{[]string{"res", "cq", "dev", dev}, [][]string{{"res", "cq", dev}}, []string{"resource", "show", "cq", "dev", dev}},
		{[]string{"res", "dev", dev}, [][]string{{"res", dev}}, []string{"resource", "show", dev}},
		{[]string{"ports", "dev", dev}, [][]string{{"ports", dev}, {"ports", "link", dev}}, nil},
		{[]string{"ports", "dev", dev, "port", "1"}, [][]string{{"ports", link}, {"ports", "link", link}, {"ports", dev, "port=1"}}, nil},
		{[]string{"gids", "-j", "dev", dev, "port", "1"}, [][]string{{"gids", link, "-j"}, {"gids", "--json", "link=" + link}, {"gids", "-j"}}, nil},
		{[]string{"devices", "-j", "-p", "dev", dev}, [][]string{{"devices", dev, "-j", "-p"}, {"devices", "--pretty", dev, "--json"}, {"devices", "-j", "-p"}}, nil},
		{[]string{"counters", "-j", "dev", dev}, [][]string{{"counters", dev, "-j"}, {"counters", "--json", "link", dev}}, nil},
	} {
		// Counters of an idle device may still tick (rxe's own traffic):
		// compare again when they moved.
		var diff string
		for try := 0; try < 5; try++ {
			want := mustRun(t, tc.canonical...)
			if strings.TrimSpace(want) == "" || strings.TrimSpace(want) == "[]" {
				t.Fatalf("verbscope %v printed nothing", tc.canonical)
			}
			diff = ""
			for _, f := range tc.forms {
				if d := cmp.Diff(want, mustRun(t, f...)); d != "" {
					diff += "verbscope " + strings.Join(f, " ") + " (-canonical +form):\n" + d
				}
			}
			if tc.rdma != nil {
				got := want
				want := strings.ReplaceAll(string(rdmaTool(t, tc.rdma...)), " \n", "\n")
				if tc.rdma[0] == "-j" {
					ours, err := oracle.WithoutAdded(parse(t, []byte(got)))
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(parse(t, []byte(want)), ours); d != "" {
						diff += "rdma " + strings.Join(tc.rdma, " ") + " (-rdma +verbscope):\n" + d
					}
				} else if d := cmp.Diff(want, withoutTGID(got)); d != "" {
					diff += "rdma " + strings.Join(tc.rdma, " ") + " (-rdma +verbscope):\n" + d
				}
			}
			if diff == "" {
				break
			}
		}
		if diff != "" {
			t.Errorf("verbscope %v:\n%s", tc.canonical, diff)
		}
	}

	// JSON that says what the system says.
	var devs []struct {
		Dev      string `json:"dev"`
		NodeGUID string `json:"node_guid"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "devices", dev, "-j", "-p")), &devs); err != nil {
		t.Fatal(err)
	}
	guid, err := os.ReadFile("/sys/class/infiniband/" + dev + "/node_guid")
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].Dev != dev || devs[0].NodeGUID != strings.TrimSpace(string(guid)) {
		t.Errorf("devices %s -j -p: %+v, node_guid file %q", dev, devs, guid)
	}
	var gids []gidJSON
	if err := json.Unmarshal([]byte(mustRun(t, "gids", link, "-j")), &gids); err != nil || len(gids) < 2 {
		t.Errorf("gids %s -j: %d GIDs, %v", link, len(gids), err)
	}

	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"res", "qp", "state=BOGUS"}, 2, `qp state "BOGUS" can never match; it is one of RESET, INIT, RTR, RTS, SQD, SQE, ERR`},
		{[]string{"res", "qp", "rxe9"}, 2, `no RDMA device "rxe9"; there are: ` + dev},
		{[]string{"res", "qp", "link", "rxe9/1", "-j"}, 2, `no RDMA device "rxe9"; there are: ` + dev},
		{[]string{"ports", "rxe9/1"}, 2, `no RDMA device "rxe9"; there are: ` + dev},
		{[]string{"gids", dev + "/999"}, 2, dev + " has no port 999; its ports are: 1"},
		{[]string{"res", "qp", "link", dev + "/2"}, 2, dev + " has no port 2; its ports are: 1"},
		{[]string{"counters", dev, "--interval=xyz"}, 2, `invalid value "xyz" for flag -interval: not a duration`},
		{[]string{"res", "qp", "state", "SQD"}, 0, "verbscope res: no qp matches state=SQD"},
		{[]string{"ports", dev, "state", "DOWN"}, 0, "verbscope ports: no port matches link=" + dev + " state=DOWN"},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("verbscope %v: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
		if tc.code == 0 && stdout != "" {
			t.Errorf("verbscope %v matched nothing but printed %q", tc.args, stdout)
		}
	}
	srv.Kill()
}
