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
	out := "=== PACKAGE example.com/m/cli\n=== RUN   TestA\n--- PASS: TestA (12.50s)\n--- FAIL: TestB (3.00s)\n    x_test.go:1: boom\n" +
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
labtest: to run a failed test again, alone:
  make lab-test PKGS=./cli RUN='^TestB$'
  make lab-test PKGS=./inspect RUN='^TestD$'
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Error(diff)
	}
}

func TestSplit(t *testing.T) {
	pkgs := []labPackage{{importPath: "a", tests: []string{"T"}}, {importPath: "b"}, {importPath: "c"}, {importPath: "d"}}
	got := split(pkgs, 2, map[string]float64{"a": 5, "b": 100, "c": 60, "d": 50})
	names := func(g []labPackage) (s []string) {
		for _, p := range g {
			s = append(s, p.importPath)
		}
		return s
	}
	if diff := cmp.Diff([][]string{{"b", "a"}, {"c", "d"}}, [][]string{names(got[0]), names(got[1])}); diff != "" {
		t.Error(diff)
	}
	if n := len(split(pkgs[:1], 2, nil)); n != 1 {
		t.Errorf("one package in %d VMs", n)
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
