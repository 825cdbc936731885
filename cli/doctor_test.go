package cli

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/verbscope/verbscope/doctor"
)

// doctorArgs runs doctor on a recorded tree, with the tree as host root.
func doctorArgs(tree string, args ...string) []string {
	return append(append([]string{"doctor"}, fixtureArgs(tree)...), append([]string{"--root", tree}, args...)...)
}

// The exit status: 1 when a check fails, 0 with warnings or n/a alone, 2
// for usage errors.
func TestDoctorExitStatus(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{doctorArgs(rxe0Tree), 0, []string{"PASS  modules", "N/A   irqs", "rxe0 is a software device", "doctor: 6 passed, 0 warned, 0 failed, 6 not applicable"}, nil},
		{doctorArgs(mlx5Tree), 1, []string{"FAIL  irqs", "WARN  modules", "failed: rdma-core, ports, irqs; warned: modules, memlock"}, nil},
		// warnings alone exit 0
		{doctorArgs(mlx5Tree, "--only", "memlock,modules"), 0, []string{"WARN  modules", "WARN  memlock", "doctor: 0 passed, 2 warned, 0 failed"}, nil},
		{doctorArgs(mlx5Tree, "--only", "ports"), 1, []string{"FAIL  ports", "mlx5_0 port 2 is DOWN"}, nil},
		{doctorArgs(rxe0Tree, "--only", "nope"), 2, nil, []string{`no check "nope"; the checks are modules, devices, rdma-core, uverbs-perms, ports, gids, memlock, mr-qp, irqs, leaks, limits`, "usage: verbscope doctor"}},
		{doctorArgs(rxe0Tree, "extra"), 2, nil, []string{`doctor takes no arguments, got "extra"`}},
		{doctorArgs(rxe0Tree, "--mr-size", "0"), 2, nil, []string{"--mr-size 0: give a size in MiB"}},
		{[]string{"doctor", "--sysfs", "/nonexistent"}, 1, nil, []string{"verbscope doctor: sysfsmon: new:"}},
		{[]string{"help", "doctor"}, 0, []string{"Usage: verbscope doctor", "--only ids", "--no-probe", "--mr-size MiB",
			"uverbs-perms  this user may read and write", "Exit status: 0 when no check failed (warnings and n/a alone exit 0), 1 when\nat least one failed",
			"summary {pass, warn, fail, na, failed [ids], warned [ids]}"}, nil},
	} {
		code, stdout, stderr := runCLI(tc.args...)
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, stdout, stderr)
		}
		for _, s := range tc.stdout {
			if !strings.Contains(stdout, s) {
				t.Errorf("%v: stdout lacks %q:\n%s", tc.args, s, stdout)
			}
		}
		for _, s := range tc.stderr {
			if !strings.Contains(stderr, s) {
				t.Errorf("%v: stderr lacks %q:\n%s", tc.args, s, stderr)
			}
		}
	}
}

// -j prints the report as JSON; its verdicts are those of the text.
func TestDoctorJSON(t *testing.T) {
	code, stdout, _ := runCLI(doctorArgs(mlx5Tree, "-j", "--only", "modules,irqs,mr-qp")...)
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	var rep doctor.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	got := map[string]doctor.Verdict{}
	for _, c := range rep.Checks {
		got[c.ID] = c.Verdict
	}
	want := map[string]doctor.Verdict{"modules": doctor.Warn, "irqs": doctor.Fail, "mr-qp": doctor.NA}
	if len(got) != len(want) || got["modules"] != want["modules"] || got["irqs"] != want["irqs"] || got["mr-qp"] != want["mr-qp"] {
		t.Errorf("verdicts %v, want %v", got, want)
	}
	if rep.Host.Live || rep.Host.Kernel != "6.8.0-45-generic" || rep.Summary.Fail != 1 || rep.Summary.Failed[0] != "irqs" {
		t.Errorf("host %+v, summary %+v", rep.Host, rep.Summary)
	}
}

// On this host, whatever its RDMA, doctor runs live end to end without
// crashing and says something about every check; on a kernel without RDMA
// (the build machines) the kernel checks fail and say why.
func TestDoctorLiveHost(t *testing.T) {
	code, stdout, stderr := runCLI("doctor", "-j", "--no-probe")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rep doctor.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, stdout)
	}
	if !rep.Host.Live || len(rep.Checks) != len(doctor.Checks) {
		t.Errorf("live %v, %d checks", rep.Host.Live, len(rep.Checks))
	}
	byID := map[string]doctor.Result{}
	for _, c := range rep.Checks {
		byID[c.ID] = c
		if c.Summary == "" {
			t.Errorf("check %s has no summary", c.ID)
		}
	}
	if byID["mr-qp"].Verdict != doctor.NA || byID["mr-qp"].Summary != "skipped (--no-probe)" {
		t.Errorf("mr-qp with --no-probe: %+v", byID["mr-qp"])
	}
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		return // a host with RDMA: the verdicts are its own
	}
	if code != 1 || byID["devices"].Verdict != doctor.Fail || !strings.Contains(byID["devices"].Summary, "the kernel has no RDMA device") {
		t.Errorf("exit %d; devices on a host without RDMA: %+v", code, byID["devices"])
	}
}
