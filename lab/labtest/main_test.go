package main

import (
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
