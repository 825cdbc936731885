package main

import (
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFuncNames(t *testing.T) {
	src := []byte("package x\n\nfunc TestMain(m *testing.M) {}\nfunc TestLabA(t *testing.T) {}\nfunc helper() {}\nfunc BenchmarkX(b *testing.B) {}\n// func TestCommented(t *testing.T) {}\nfunc Testlower(t *testing.T) {}\n")
	if diff := cmp.Diff([]string{"TestLabA"}, funcNames(src, "Test")); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff([]string{"BenchmarkX"}, funcNames(src, "Benchmark")); diff != "" {
		t.Error(diff)
	}
}

func TestSelectPattern(t *testing.T) {
	names := []string{"TestLabA", "TestLabB", "TestOther"}
	for _, tc := range []struct{ user, want string }{
		{"", "^(TestLabA|TestLabB|TestOther)$"},
		{"Lab", "^(TestLabA|TestLabB)$"},
		{"LabB/sub", "^(TestLabB)$/sub"},
		{"Nothing", "^$"},
		{"(", "^$"},
	} {
		if got := selectPattern(names, tc.user); got != tc.want {
			t.Errorf("selectPattern(%q) = %q, want %q", tc.user, got, tc.want)
		}
	}
}

func TestReport(t *testing.T) {
	r := &report{module: "example.com/m"}
	out := "=== PACKAGE example.com/m/cli\n=== RUN   TestA\n    clean.go:30: labkit: the guest's CPUs were busy 20.0 s in 12.5 s\n--- PASS: TestA (12.50s)\n" +
		"=== RUN   TestB\n=== RUN   TestB/one\n    clean.go:30: labkit: the guest's CPUs were busy 1.5 s in 1.0 s\n=== RUN   TestB/two\n    clean.go:30: labkit: the guest's CPUs were busy 1.5 s in 1.0 s\n" +
		"--- FAIL: TestB (3.00s)\n    x_test.go:1: boom\n" +
		"    --- PASS: TestB/sub (1.00s)\nFAIL\tgithub\n=== PACKAGE example.com/m/inspect\n--- PASS: TestC (0.10s)\n" +
		"panic: test timed out after 10m0s\n\trunning tests:\n\t\tTestD (9m58s)\n\ngoroutine 1 [running]:\n"
	// Lines arrive in pieces, as the console gives them.
	for len(out) > 0 {
		n := min(7, len(out))
		r.Write([]byte(out[:n]))
		out = out[n:]
	}
	var b strings.Builder
	r.summary(&b, 3, false)
	want := `labtest: the 3 slowest:
     598.0s  ./inspect    TestD  FAIL
      12.5s  ./cli        TestA
       3.0s  ./cli        TestB  FAIL
labtest: the 2 busiest (the guest's CPU-seconds over the test, of 2 vCPUs):
      20.0s  ./cli        TestA  (80% of its VM for 12.5s)
       3.0s  ./cli        TestB  (50% of its VM for 3.0s)
labtest: to run a failed test again, alone:
  make lab-test PKGS=./cli RUN='^TestB$'
  make lab-test PKGS=./inspect RUN='^TestD$'
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Error(diff)
	}
}

func TestSplit(t *testing.T) {
	pkgs := []labPackage{
		{importPath: "a", tests: []string{"TestA1", "TestA2"}},
		{importPath: "b", tests: []string{"TestB1", "TestB2", "TestB3"}, benchmarks: []string{"BenchmarkB"}},
	}
	last := map[string]float64{"a.TestA1": 100, "a.TestA2": 5, "b.TestB1": 60, "b.TestB2": 50}
	got := split(pkgs, 2, last, 0)
	show := func(g []labPackage) (s []string) {
		for _, p := range g {
			s = append(s, p.importPath+":"+strings.Join(p.tests, ","))
		}
		return s
	}
	// Longest first to the least loaded VM: A1 (100) to 1, B1 (60) to 2,
	// B2 (50) to 2, B3 (never timed: 10) to 1, A2 (5) to 1; each VM's
	// tests in their files' order, the benchmarks with the first VM.
	want := [][]string{{"a:TestA1,TestA2", "b:TestB3"}, {"b:TestB1,TestB2"}}
	if diff := cmp.Diff(want, [][]string{show(got[0]), show(got[1])}); diff != "" {
		t.Error(diff)
	}
	// A lead of 100 s (the -then step) on the first VM: A1 to 2 (100
	// each), B1 to 1 (160), B2 and B3 to 2 (160), A2 to 1: the first VM
	// has 65 s of tests, the second 160.
	led := split(pkgs, 2, last, 100)
	want = [][]string{{"a:TestA2", "b:TestB1"}, {"a:TestA1", "b:TestB2,TestB3"}}
	if diff := cmp.Diff(want, [][]string{show(led[0]), show(led[1])}); diff != "" {
		t.Errorf("with a lead: %s", diff)
	}
	if n := len(split(pkgs[:1], 5, nil, 0)); n != 2 {
		t.Errorf("two tests in %d VMs", n)
	}
}

func TestSelectTests(t *testing.T) {
	pkgs := []labPackage{{importPath: "a", tests: []string{"TestX", "TestY"}}, {importPath: "b", tests: []string{"TestZ"}}}
	got := selectTests(pkgs, "X|Z/sub")
	if len(got) != 2 || len(got[0].tests) != 1 || got[0].tests[0] != "TestX" || got[1].tests[0] != "TestZ" {
		t.Errorf("got %+v", got)
	}
	if len(selectTests(pkgs, "(")) != 0 || len(selectTests(pkgs, "Nothing")) != 0 {
		t.Error("a pattern that selects nothing kept packages")
	}
}

func TestPackageWriter(t *testing.T) {
	var mu sync.Mutex
	var dst strings.Builder
	a := &packageWriter{mu: &mu, dst: &dst}
	b := &packageWriter{mu: &mu, dst: &dst}
	a.Write([]byte("=== PACKAGE x\n--- PASS: TestA"))
	b.Write([]byte("=== PACKAGE y\n--- PASS: TestB (1.00s)\n"))
	a.Write([]byte(" (2.00s)\nok  \tx\t3.0s\n"))
	b.Write([]byte("FAIL\ty\t1.5s\n=== PACKAGE z\npanic: died"))
	b.Flush()
	want := "=== PACKAGE x\n--- PASS: TestA (2.00s)\nok  \tx\t3.0s\n=== PACKAGE y\n--- PASS: TestB (1.00s)\nFAIL\ty\t1.5s\n=== PACKAGE z\npanic: died"
	if diff := cmp.Diff(want, dst.String()); diff != "" {
		t.Error(diff)
	}
}
