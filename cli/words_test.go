package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// treeArgs puts a recorded tree's roots after the command name.
func treeArgs(tree, cmd string, args ...string) []string {
	if cmd == "doctor" {
		return doctorArgs(tree, args...)
	}
	return append(append([]string{cmd}, fixtureArgs(tree)...), args...)
}

// noWait makes --interval read twice without sleeping.
func noWait(t *testing.T) {
	sampleWait = func(context.Context, time.Duration) error { return nil }
	t.Cleanup(func() { sampleWait = sleepCtx })
}

// Every view command, every form of its grammar: each form prints exactly
// what the first form of its group prints, with the same exit status.
func TestGrammarForms(t *testing.T) {
	noWait(t)
	for _, tc := range []struct {
		cmd   string
		tree  string
		forms [][]string
	}{
		{"devices", mlx5Tree, [][]string{
			{"dev", "mlx5_1"}, {"mlx5_1"}, {"dev=mlx5_1"}, {"--", "mlx5_1"}}},
		{"devices", mlx5Tree, [][]string{
			{"-j", "-p", "mlx5_1"}, {"mlx5_1", "-j", "-p"}, {"--json", "--pretty", "dev", "mlx5_1"}, {"dev", "mlx5_1", "--pretty", "--json"}, {"-j", "mlx5_1", "-p"}}},
		{"devices", rxe0Tree, [][]string{
			{"-d"}, {"--details"}, {"rxe0", "-d"}, {"-d=true"}, {"-dd"}, {"-d", "-d"}}},
		{"devices", rxe0Tree, [][]string{{}, {"-d=false"}, {"rxe0"}}},
		{"ports", mlx5Tree, [][]string{
			{"dev", "mlx5_0", "port", "2"}, {"mlx5_0/2"}, {"link", "mlx5_0/2"}, {"link=mlx5_0/2"}, {"mlx5_0", "port=2"},
			{"port", "2", "mlx5_0"}, {"port", "2", "dev", "mlx5_0"}, {"mlx5_0", "state", "DOWN"}, {"state=down", "port", "1-2", "mlx5_0"}}},
		{"ports", rxe0Tree, [][]string{
			{"-j"}, {"rxe0", "-j"}, {"rxe0/1", "--json"}, {"-j", "dev", "rxe0"}, {"link", "rxe0/1", "-j"}, {"port", "1", "-j"}}},
		{"ports", rxe0Tree, [][]string{
			{"-j", "-p"}, {"--json", "--pretty", "rxe0"}, {"rxe0/1", "-p", "-j"}}},
		{"gids", mlx5Tree, [][]string{
			{"dev=mlx5_1", "type=v2"}, {"mlx5_1", "type", "v2"}, {"mlx5_1/1", "type", "v2"}, {"type", "RoCE v2", "link", "mlx5_1/1"},
			{"type", "v2", "mlx5_1", "port", "1"}}},
		{"gids", rxe0Tree, [][]string{
			{"-j"}, {"rxe0/1", "-j"}, {"link", "rxe0/1", "--json"}, {"-j", "dev", "rxe0", "port", "1"}, {"rxe0", "-j"}}},
		{"gids", rxe0Tree, [][]string{
			{"index", "1", "-j"}, {"rxe0/1", "-j", "index=1"}, {"-j", "type", "v2", "index", "1"}}},
		{"irqs", mlx5Tree, [][]string{
			{"dev", "mlx5_0"}, {"mlx5_0"}, {"dev=mlx5_0"}}},
		{"irqs", mlx5Tree, [][]string{
			{"-j", "-p", "dev=mlx5_0"}, {"mlx5_0", "-j", "-p"}, {"--pretty", "mlx5_0", "--json"}}},
		{"irqs", mlx5Tree, [][]string{
			{"--interval", "1s", "dev=mlx5_0"}, {"mlx5_0", "--interval=1s"}, {"mlx5_0", "--interval", "1000ms"}}},
		{"counters", mlx5Tree, [][]string{
			{"-j", "-p", "dev", "mlx5_1"}, {"mlx5_1", "-j", "-p"}, {"--json", "mlx5_1", "--pretty"}, {"link", "mlx5_1", "-j", "-p"}}},
		{"counters", mlx5Tree, [][]string{
			{"dev", "mlx5_0", "port", "1", "name", "err"}, {"mlx5_0/1", "name=err"}, {"name", "ERR", "link", "mlx5_0/1"},
			{"mlx5_0", "--", "port", "1", "name", "err"}}},
		{"counters", mlx5Tree, [][]string{
			{"--interval", "1s", "dev", "mlx5_0", "name", "xmit"}, {"mlx5_0", "name=xmit", "--interval=1s"}, {"name", "xmit", "mlx5_0", "--interval", "1s"}}},
		{"counters", rxe0Tree, [][]string{
			{"-j"}, {"rxe0", "-j"}, {"--json", "rxe0"}, {"rxe0/1", "-j", "group", "hw_counters"}}},
		{"doctor", rxe0Tree, [][]string{
			{"-j", "--only", "modules,devices"}, {"--only", "modules,devices", "-j"}, {"--json", "--only=modules,devices"}}},
		{"doctor", rxe0Tree, [][]string{
			{"-j", "-p", "--only", "ports"}, {"--only", "ports", "--pretty", "--json"}}},
	} {
		want := treeArgs(tc.tree, tc.cmd, tc.forms[0]...)
		wantCode, wantOut, wantErr := runCLI(want...)
		if wantCode != 0 && tc.cmd != "doctor" || wantOut == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", want, wantCode, wantOut, wantErr)
			continue
		}
		for _, form := range tc.forms[1:] {
			args := treeArgs(tc.tree, tc.cmd, form...)
			code, out, errs := runCLI(args...)
			if code != wantCode {
				t.Errorf("%s %v: exit %d, want %d as %v (stderr %q)", tc.cmd, form, code, wantCode, tc.forms[0], errs)
			}
			if diff := cmp.Diff(wantOut+wantErr, out+errs); diff != "" {
				t.Errorf("%s %v differs from %s %v (-want +got):\n%s", tc.cmd, form, tc.cmd, tc.forms[0], diff)
			}
		}
	}
}

// Every view command refuses what cannot mean anything with exit status
// 2, naming the mistake and what would be valid; a valid filter that
// matches nothing says so on stderr and exits 0.
func TestGrammarErrors(t *testing.T) {
	noWait(t)
	const rxeStates = "it is one of NOP, DOWN, INIT, ARMED, ACTIVE, ACTIVE_DEFER"
	for _, tc := range []struct {
		cmd    string
		args   []string
		code   int
		stderr string
	}{
		{"devices", []string{"nope0"}, 2, `no RDMA device "nope0"; there are: rxe0`},
		{"devices", []string{"dev", "nope0", "-j"}, 2, `no RDMA device "nope0"; there are: rxe0`},
		{"devices", []string{"rxe0/1"}, 2, `dev "rxe0/1": a device name has no /; for a port say link DEV/PORT`},
		{"devices", []string{"port=1"}, 2, `devices has no filter "port"; its filters are dev`},
		{"devices", []string{"port", "1"}, 2, `"port" and "1" cannot both stand alone: one DEV may; the filters of devices are dev`},
		{"devices", []string{"rxe0", "rxe1"}, 2, `"rxe0" and "rxe1" cannot both stand alone: one DEV may; the filters of devices are dev`},
		{"devices", []string{"-x"}, 2, "flag provided but not defined: -x"},
		{"devices", []string{"rxe0", "-d=maybe"}, 2, "-d takes no value"},
		{"devices", []string{"dev"}, 2, "dev needs a value (dev VALUE or dev=VALUE)"},
		{"ports", []string{"nope0/1"}, 2, `no RDMA device "nope0"; there are: rxe0`},
		{"ports", []string{"rxe0/x"}, 2, `link "rxe0/x": a port is a number counting from 1`},
		{"ports", []string{"state", "BOGUS"}, 2, `ports state "BOGUS" can never match; ` + rxeStates},
		{"ports", []string{"-j", "state=up"}, 2, rxeStates},
		{"ports", []string{"port", "one"}, 2, `port takes numbers and ranges like 5 or 0-6,17, not "one"`},
		{"ports", []string{"rxe0", "pid=1"}, 2, `ports has no filter "pid"; its filters are link, dev, port, state, netdev`},
		{"ports", []string{"rxe0", "pid", "1"}, 2, `"rxe0" and "pid" cannot both stand alone: one DEV or DEV/PORT may; the filters of ports are link, dev, port, state, netdev`},
		{"gids", []string{"rxe0/999"}, 2, `rxe0 has no port 999; its ports are: 1`},
		{"gids", []string{"link", "rxe0/1,rxe0/2", "-j"}, 2, `rxe0 has no port 2; its ports are: 1`},
		{"ports", []string{"rxe0/2"}, 2, `rxe0 has no port 2; its ports are: 1`},
		{"counters", []string{"rxe0/7"}, 2, `rxe0 has no port 7; its ports are: 1`},
		{"gids", []string{"type", "v3"}, 2, `gids type "v3" can never match; it is one of v1, v2, IB/RoCE v1, RoCE v2`},
		{"gids", []string{"rxe0/1", "index", "x"}, 2, `index takes numbers`},
		{"gids", []string{"rxe0/1", "index", "-1"}, 2, `flag provided but not defined: -1`},
		{"irqs", []string{"--interval=xyz"}, 2, `invalid value "xyz" for flag -interval: not a duration; write it like 500ms, 2s or 1m`},
		{"irqs", []string{"rxe9"}, 2, `no RDMA device "rxe9"; there are: rxe0`},
		{"counters", []string{"rxe0", "--interval=xyz"}, 2, `invalid value "xyz" for flag -interval: not a duration`},
		{"counters", []string{"rxe0", "--interval", "0s"}, 2, `invalid value "0s" for flag -interval: must be positive`},
		{"counters", []string{"group", "sw_counters"}, 2, `counters group "sw_counters" can never match; it is one of counters, hw_counters`},
		{"counters", []string{"rxe0", "name"}, 2, "name needs a value"},
		{"doctor", []string{"rxe0"}, 2, `doctor takes no arguments, got "rxe0"`},
		{"doctor", []string{"-j", "--only", "nope"}, 2, `no check "nope"`},
		{"res", []string{"qp", "state=BOGUS"}, 2, `qp state "BOGUS" can never match; it is one of RESET, INIT, RTR, RTS, SQD, SQE, ERR`},
		{"res", []string{"-j", "qp", "type", "XX"}, 2, `qp type "XX" can never match; it is one of SMI, GSI, RC, UC, UD, RAW_IPV6, RAW_ETHERTYPE, RAW_PACKET, XRC_INI, XRC_TGT, DRIVER`},
		{"res", []string{"qp", "path-mig-state", "gone", "-p"}, 2, `it is one of MIGRATED, REARM, ARMED`},
		{"res", []string{"cq", "poll-ctx", "x"}, 2, `it is one of DIRECT, SOFTIRQ, WORKQUEUE, UNBOUND_WORKQUEUE`},
		{"res", []string{"cm_id", "state", "x"}, 2, `it is one of IDLE, ADDR_QUERY`},
		{"res", []string{"qp", "rxe0/0"}, 2, `a port is a number counting from 1`},
		{"res", []string{"rxe0", "qp"}, 2, `"rxe0" is not an object kind`},
		{"res", []string{"qp", "-d=x"}, 2, "-d takes no value"},
		// Valid filters that match nothing: said on stderr, exit 0.
		{"ports", []string{"state", "DOWN"}, 0, "verbscope ports: no port matches state=DOWN"},
		{"gids", []string{"rxe0/1", "type=v1", "-j"}, 0, "verbscope gids: no GID matches link=rxe0/1 type=v1"},
		{"counters", []string{"name", "nosuchcounter"}, 0, "verbscope counters: no counter matches name=nosuchcounter"},
		{"counters", []string{"rxe0", "--errors", "--nonzero"}, 0, "verbscope counters: no counter matches link=rxe0 --errors --nonzero"},
	} {
		args := append([]string{tc.cmd}, tc.args...)
		if tc.cmd != "res" {
			args = treeArgs(rxe0Tree, tc.cmd, tc.args...)
		}
		code, stdout, stderr := runCLI(args...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%s %v: exit %d, stderr %q; want exit %d and %q", tc.cmd, tc.args, code, stderr, tc.code, tc.stderr)
		}
		if tc.code == 2 && !strings.Contains(stderr, "usage: verbscope "+tc.cmd) {
			t.Errorf("%s %v: no usage line: %q", tc.cmd, tc.args, stderr)
		}
		if out := strings.TrimSpace(stdout); tc.code == 0 && out != "" && out != "[]" && out != "null" {
			t.Errorf("%s %v: matched nothing but printed %q", tc.cmd, tc.args, stdout)
		}
	}
}

// The flags have one meaning in every view command, and the help lists
// the long and short names on one line.
func TestGrammarFlagsEverywhere(t *testing.T) {
	for _, cmd := range []string{"devices", "ports", "gids", "irqs", "counters", "res", "doctor"} {
		code, stdout, _ := runCLI(cmd, "--help")
		for _, s := range []string{"-j, --json ", "-p, --pretty ", "-d, --details ", "-dd "} {
			if code != 0 || !strings.Contains(stdout, s) {
				t.Errorf("%s --help lacks %q:\n%s", cmd, s, stdout)
			}
		}
	}
}
