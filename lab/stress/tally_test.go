package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTally reads both of a stress run's streams, recorded from real
// runs of a package with a passing test, a failing subtest and a test
// its binary's timeout stopped (unit.json from go test -json; lab.txt as
// labtest prints go test -v, with a package whose leak check failed
// after its tests passed, and a package that passed).
func TestTally(t *testing.T) {
	type result struct {
		Runs, Fails int
		First       string // a line the first failure's output must hold
	}
	for _, tc := range []struct {
		file   string
		read   func(*tally, *os.File) error
		want   map[testKey]result
		failed []testKey
	}{
		{
			file: "testdata/unit.json",
			read: func(t *tally, f *os.File) error { return t.readJSON(f) },
			want: map[testKey]result{
				{"ex", "TestA"}:     {1, 0, ""},
				{"ex", "TestB"}:     {1, 1, "--- FAIL: TestB (0.00s)"},
				{"ex", "TestB/sub"}: {1, 1, "    a_test.go:4: boom"},
				{"ex", "TestC"}:     {1, 1, "panic: test timed out after 1s"},
			},
			failed: []testKey{{"ex", "TestB/sub"}, {"ex", "TestB"}, {"ex", "TestC"}},
		},
		{
			file: "testdata/lab.txt",
			read: func(t *tally, f *os.File) error { return t.readVerbose(f) },
			want: map[testKey]result{
				{"ex", "TestA"}:       {1, 0, ""},
				{"ex", "TestB"}:       {1, 1, "--- FAIL: TestB (0.00s)"},
				{"ex", "TestB/sub"}:   {1, 1, "    a_test.go:4: boom"},
				{"ex", "TestC"}:       {1, 1, "panic: test timed out after 1s"},
				{"ex/leaky", "TestD"}: {2, 0, ""},
				{"ex/leaky", pkgTest}: {1, 1, "labtest: ex/leaky: verbs objects outlived every process the tests started; whose they are:"},
				{"ex/fine", "TestE"}:  {1, 0, ""},
			},
			failed: []testKey{{"ex", "TestB"}, {"ex", "TestB/sub"}, {"ex", "TestC"}, {"ex/leaky", pkgTest}},
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f, err := os.Open(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ta := newTally()
			if err := tc.read(ta, f); err != nil {
				t.Fatal(err)
			}
			got := map[testKey]result{}
			for k, tt := range ta.tests {
				r := result{Runs: tt.runs, Fails: tt.fails}
				if want := tc.want[k].First; want != "" && containsLine(tt.first, want) {
					r.First = want
				}
				got[k] = r
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(testKey{})); diff != "" {
				t.Errorf("tally (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.failed, ta.failed, cmp.AllowUnexported(testKey{})); diff != "" {
				t.Errorf("failures in order (-want +got):\n%s", diff)
			}
			var b strings.Builder
			if n := ta.print(&b); n != len(tc.failed) {
				t.Errorf("print counted %d failed tests, want %d:\n%s", n, len(tc.failed), b.String())
			}
		})
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}
