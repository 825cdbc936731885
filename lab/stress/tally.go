package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
)

// tally counts each test's runs and failures over a stage's output and
// keeps the output of each failing test's first failed run. Two readers
// feed it: go test -json's events (the unit tests) and go test -v's
// lines as labtest prints them, a package at a time (the lab suite).
type tally struct {
	stage    string
	progress io.Writer // if set, hears each package's end
	tests    map[testKey]*testTally
	failed   []testKey            // in the order of their first failure
	open     map[testKey][]string // the output of runs not yet ended
	pkgOut   map[string][]string  // package-level output since its start
	pkgFail  map[string]bool      // a test of the package failed since its start
}

type testKey struct{ pkg, test string }

type testTally struct {
	runs, fails int
	first       []string // the output of the first failed run
}

// pkgTest names a failure that belongs to no test: a build that failed,
// a binary that panicked outside a test, labtest's leak check.
const pkgTest = "(package)"

// keepLines bounds the output kept of one run: a test that fails
// after printing much is read from its end.
const keepLines = 200

func newTally() *tally {
	return &tally{tests: map[testKey]*testTally{}, open: map[testKey][]string{}, pkgOut: map[string][]string{}, pkgFail: map[string]bool{}}
}

func (t *tally) startPackage(pkg string) {
	t.pkgOut[pkg], t.pkgFail[pkg] = nil, false
}

func (t *tally) run(pkg, test string) {
	t.open[testKey{pkg, test}] = []string{}
}

func (t *tally) output(pkg, test, line string) {
	k := testKey{pkg, test}
	if test == "" {
		t.pkgOut[pkg] = keepLast(append(t.pkgOut[pkg], line))
		return
	}
	t.open[k] = keepLast(append(t.open[k], line))
}

func keepLast(lines []string) []string {
	if len(lines) > keepLines {
		return lines[len(lines)-keepLines:]
	}
	return lines
}

// end counts a run of test; skipped runs are not runs.
func (t *tally) end(pkg, test, action string) {
	k := testKey{pkg, test}
	out := t.open[k]
	delete(t.open, k)
	if action == "skip" {
		return
	}
	tt := t.tests[k]
	if tt == nil {
		tt = &testTally{}
		t.tests[k] = tt
	}
	tt.runs++
	if action != "fail" {
		return
	}
	t.pkgFail[pkg] = true
	tt.fails++
	if tt.fails == 1 {
		tt.first = out
		t.failed = append(t.failed, k)
	}
}

// endPackage closes a package's run: a failed package's tests still
// running (its binary timed out or crashed) failed, and a failed package
// none of whose tests failed is a failure of its own.
func (t *tally) endPackage(pkg string, passed bool, line string) {
	if t.progress != nil {
		fmt.Fprintln(t.progress, "stress:", line)
	}
	if passed {
		return
	}
	var running []testKey
	for k := range t.open {
		if k.pkg == pkg {
			running = append(running, k)
		}
	}
	sort.Slice(running, func(i, j int) bool { return running[i].test < running[j].test })
	for _, k := range running {
		t.open[k] = append(t.open[k], t.pkgOut[pkg]...)
		t.end(pkg, k.test, "fail")
	}
	if !t.pkgFail[pkg] {
		t.open[testKey{pkg, pkgTest}] = t.pkgOut[pkg]
		t.end(pkg, pkgTest, "fail")
	}
}

// event is the part of go test -json's events (cmd/test2json) read here.
type event struct {
	Action, Package, ImportPath, Test, Output string
	Elapsed                                   float64
}

// readJSON takes go test -json's stream.
func (t *tally) readJSON(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			continue // go's own lines (a build's "# pkg") are not events
		}
		pkg := e.Package
		if pkg == "" {
			pkg = e.ImportPath // build-output, build-fail
		}
		line := strings.TrimSuffix(e.Output, "\n")
		switch {
		case e.Action == "start":
			t.startPackage(pkg)
		case e.Action == "build-output":
			t.output(pkg, "", line)
		case e.Action == "run" && e.Test != "":
			t.run(pkg, e.Test)
		case e.Action == "output":
			t.output(pkg, e.Test, line)
		case e.Test != "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			t.end(pkg, e.Test, e.Action)
		case e.Test == "" && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip"):
			word := map[string]string{"pass": "ok  ", "fail": "FAIL", "skip": "ok  "}[e.Action]
			t.endPackage(pkg, e.Action != "fail", fmt.Sprintf("%s %s %.1fs", word, pkg, e.Elapsed))
		}
	}
	return sc.Err()
}

var (
	// packageRE is the line labtest's guest script prints before each
	// package, endRE the one after it (lab/labtest/script.go).
	packageRE = regexp.MustCompile(`^=== PACKAGE (\S+)$`)
	endRE     = regexp.MustCompile(`^(ok  |FAIL)\t(\S+)\t`)
	// nameRE is go test -v's line naming the test whose output follows.
	nameRE = regexp.MustCompile(`^=== (RUN|CONT|NAME|PAUSE) +(\S+)$`)
	// resultRE is a test's (or subtest's, indented) result line.
	resultRE = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)
)

// readVerbose takes labtest's output: go test -v's lines between its
// "=== PACKAGE" and ok or FAIL lines. Output belongs to the test the
// last "=== RUN/CONT/NAME" named (go test -v names the test again
// whenever the one printing changes), and after a top-level test's
// result, to the package.
func (t *tally) readVerbose(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	pkg, cur := "", ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if m := packageRE.FindStringSubmatch(line); m != nil {
			pkg, cur = m[1], ""
			t.startPackage(pkg)
			continue
		}
		if pkg == "" {
			continue // before the first package: the runner's own lines
		}
		if m := endRE.FindStringSubmatch(line); m != nil && m[2] == pkg {
			t.endPackage(pkg, m[1] == "ok  ", line)
			pkg, cur = "", ""
			continue
		}
		if m := nameRE.FindStringSubmatch(line); m != nil {
			cur = m[2]
			if m[1] == "RUN" {
				t.run(pkg, cur)
			}
			continue
		}
		if m := resultRE.FindStringSubmatch(line); m != nil {
			if _, ok := t.open[testKey{pkg, m[2]}]; ok {
				t.output(pkg, m[2], line)
				t.end(pkg, m[2], strings.ToLower(m[1]))
				if !strings.Contains(m[2], "/") {
					cur = ""
				}
				continue
			}
		}
		t.output(pkg, cur, line)
	}
	return sc.Err()
}

// print writes the stage's summary and each failed test with the output
// of its first failure; it returns how many tests failed.
func (t *tally) print(w io.Writer) int {
	runs := 0
	for _, tt := range t.tests {
		runs += tt.runs
	}
	fmt.Fprintf(w, "\n== %s: %d runs of %d tests, %d failed at least once\n", t.stage, runs, len(t.tests), len(t.failed))
	for _, k := range t.failed {
		tt := t.tests[k]
		fmt.Fprintf(w, "\nFAIL %s %s: failed %d of %d runs; the first failure:\n", k.pkg, k.test, tt.fails, tt.runs)
		for _, l := range tt.first {
			fmt.Fprintln(w, "    "+l)
		}
	}
	return len(t.failed)
}
