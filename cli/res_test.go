package cli

import (
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
)

func TestResArgs(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		object  string
		query   inspect.Query
		filters []string // "key=value"
		err     string
	}{
		{args: nil},
		{args: []string{"show"}},
		{args: []string{"rxe0"}, query: inspect.Query{Dev: "rxe0"}, filters: []string{"dev=rxe0"}},
		{args: []string{"qp"}, object: "qp"},
		{args: []string{"list", "qp"}, object: "qp"},
		{args: []string{"qp", "state=RTS", "type", "RC"}, object: "qp", filters: []string{"state=RTS", "type=RC"}},
		{args: []string{"qp", "link", "rxe0/1", "lqpn", "0-6"}, object: "qp", query: inspect.Query{Dev: "rxe0", Port: 1},
			filters: []string{"link=rxe0/1", "lqpn=0-6"}},
		{args: []string{"qp", "dev", "rxe0"}, object: "qp", query: inspect.Query{Dev: "rxe0"}, filters: []string{"dev=rxe0"}},
		{args: []string{"qp", "rxe0"}, object: "qp", query: inspect.Query{Dev: "rxe0"}, filters: []string{"link=rxe0"}},
		{args: []string{"qp", "rxe0/1"}, object: "qp", query: inspect.Query{Dev: "rxe0", Port: 1}, filters: []string{"link=rxe0/1"}},
		{args: []string{"cq", "rxe0"}, object: "cq", query: inspect.Query{Dev: "rxe0"}, filters: []string{"dev=rxe0"}},
		{args: []string{"cq", "link", "rxe0/1"}, err: `"link" and "rxe0/1" cannot both stand alone: one DEV may; the filters of cq are dev,`},
		{args: []string{"qp", "state=BOGUS"}, err: `qp state "BOGUS" can never match; it is one of RESET, INIT, RTR, RTS, SQD, SQE, ERR`},
		{args: []string{"qp", "rxe0", "rxe1"}, err: `cannot both stand alone: one DEV or DEV/PORT may`},
		{args: []string{"cm_id", "src-port=7174"}, object: "cm_id", filters: []string{"src-port=7174"}},
		{args: []string{"qp", "pid"}, err: `pid needs a value`},
		{args: []string{"qp", "nope=1"}, err: `qp has no filter "nope"`},
		{args: []string{"qp", "lqpn=x"}, err: "lqpn takes numbers"},
		{args: []string{"cq", "lqpn=1"}, err: `cq has no filter "lqpn"`},
		{args: []string{"rxe0", "qp"}, err: `"rxe0" is not an object kind`},
	} {
		r, err := parseResArgs(tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
			continue
		}
		var fs []string
		for _, f := range r.filters {
			fs = append(fs, f.Key+"="+f.Value)
		}
		if r.object != tc.object || r.query != tc.query || !cmp.Equal(fs, tc.filters) {
			t.Errorf("%v: got %q %+v %v, want %q %+v %v", tc.args, r.object, r.query, fs, tc.object, tc.query, tc.filters)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("res", flag.ContinueOnError)
	j := fs.Bool("j", false, "")
	d := fs.Bool("d", false, "")
	rest, err := parseInterspersed(fs, []string{"qp", "-j", "state", "RTS", "-d", "--", "-x"})
	if err != nil || !*j || !*d || strings.Join(rest, " ") != "qp state RTS -x" {
		t.Errorf("got %v %v j=%v d=%v", rest, err, *j, *d)
	}
}

func TestResCLI(t *testing.T) {
	code, stdout, _ := runCLI("res", "--help")
	for _, s := range []string{"Usage: verbscope res", "rdma -j resource show", "Examples:", "verbscope res qp state=RTS", "-j", "--record file"} {
		if code != 0 || !strings.Contains(stdout, s) {
			t.Errorf("res --help (exit %d) lacks %q:\n%s", code, s, stdout)
		}
	}
	if code, _, stderr := runCLI("res", "qp", "bogus=1"); code != 2 || !strings.Contains(stderr, `no filter "bogus"`) {
		t.Errorf("bad filter: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runCLI("res", "-x"); code != 2 || !strings.Contains(stderr, "flag provided but not defined") {
		t.Errorf("bad flag: exit %d, %q", code, stderr)
	}
	// Where the kernel has no RDMA (the build hosts), res says so and
	// how to get a kernel that has it; elsewhere it lists devices.
	code, stdout, stderr := runCLI("res")
	switch {
	case code == 1 && strings.Contains(stderr, "no RDMA netlink in this kernel") && strings.Contains(stderr, "verbscope lab"):
	case code == 0 && strings.Contains(stdout, ": pd "):
	default:
		t.Errorf("res: exit %d\nstdout %q\nstderr %q", code, stdout, stderr)
	}
}
