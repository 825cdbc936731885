package main

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// report watches go test's output as it streams by, learns which test of
// which package passed, failed or was running when its binary timed out,
// and at the end prints the slowest tests and how to run each failure
// again.
type report struct {
	mu      sync.Mutex
	module  string // the module path, to turn import paths into ./dirs
	pkg     string // the package whose output is streaming
	results []testResult
	partial string             // a line not yet ended
	took    map[string]float64 // each test's seconds, keyed importpath.TestName
	inPanic bool               // after "running tests:" of a test binary's timeout
	// The guest's busy CPU-seconds labkit.Clean logged since the last
	// result: the test's own, or its subtests' summed; inSub says the
	// output is a subtest's (go test -v's === lines name the test).
	busy, subBusy float64
	inSub         bool
}

type testResult struct {
	pkg, name string
	took      time.Duration
	busy      float64 // the guest's CPU-seconds over it, if it logged them
	failed    bool
}

var (
	// pkgStartRE is the line the guest script prints before each package.
	pkgStartRE = regexp.MustCompile(`^=== PACKAGE (\S+)$`)
	// resultRE is a top-level test's (or benchmark's) result line.
	resultRE = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)`)
	// runningRE is a test named under go test's "panic: test timed out".
	runningRE = regexp.MustCompile(`^\s+(Test\w+) \(([0-9hms.]+)\)$`)
	// busyRE is labkit.Clean's line: how busy the guest's CPUs were
	// over a test.
	busyRE = regexp.MustCompile(`^ +\S+\.go:\d+: labkit: the guest's CPUs were busy ([0-9.]+) s in`)
	// nameRE is go test -v's line naming the test whose output follows.
	nameRE = regexp.MustCompile(`^=== (?:RUN|CONT|NAME)\s+(\S+)$`)
)

// Write takes the output stream; lines may arrive in pieces.
func (r *report) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.partial + string(p)
	lines := strings.Split(s, "\n")
	r.partial = lines[len(lines)-1]
	for _, l := range lines[:len(lines)-1] {
		r.line(strings.TrimRight(l, "\r"))
	}
	return len(p), nil
}

func (r *report) line(l string) {
	if m := pkgStartRE.FindStringSubmatch(l); m != nil {
		r.pkg, r.inPanic = m[1], false
		return
	}
	if m := nameRE.FindStringSubmatch(l); m != nil {
		r.inSub = strings.Contains(m[1], "/")
		return
	}
	if m := busyRE.FindStringSubmatch(l); m != nil {
		secs, _ := strconv.ParseFloat(m[1], 64)
		if !r.inSub {
			r.busy = secs
		} else {
			r.subBusy += secs
		}
		return
	}
	if m := resultRE.FindStringSubmatch(l); m != nil {
		secs, _ := strconv.ParseFloat(m[3], 64)
		busy := r.busy
		if busy == 0 {
			busy = r.subBusy
		}
		r.busy, r.subBusy = 0, 0
		if r.took == nil {
			r.took = map[string]float64{}
		}
		r.took[r.pkg+"."+m[2]] = secs
		r.results = append(r.results, testResult{pkg: r.pkg, name: m[2], took: time.Duration(secs * float64(time.Second)), busy: busy, failed: m[1] == "FAIL"})
		return
	}
	switch {
	case strings.HasPrefix(l, "panic: test timed out after"):
		r.inPanic = true
	case r.inPanic && strings.TrimSpace(l) == "running tests:":
	case r.inPanic:
		if m := runningRE.FindStringSubmatch(l); m != nil {
			d, _ := time.ParseDuration(m[2])
			r.results = append(r.results, testResult{pkg: r.pkg, name: m[1], took: d, failed: true})
			if r.took == nil {
				r.took = map[string]float64{}
			}
			r.took[r.pkg+"."+m[1]] = d.Seconds()
		} else {
			r.inPanic = false
		}
	}
}

// dir turns an import path into the ./dir form make lab-test takes.
func (r *report) dir(pkg string) string {
	if rest, ok := strings.CutPrefix(pkg, r.module+"/"); ok {
		return "./" + rest
	}
	if pkg == r.module {
		return "."
	}
	return pkg
}

// summary prints the n slowest tests and, for each failed one, the command
// that runs it alone.
func (r *report) summary(w io.Writer, n int, bench bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.results) == 0 {
		return
	}
	byTime := append([]testResult(nil), r.results...)
	sort.SliceStable(byTime, func(i, j int) bool { return byTime[i].took > byTime[j].took })
	if len(byTime) > n {
		byTime = byTime[:n]
	}
	fmt.Fprintf(w, "labtest: the %d slowest:\n", len(byTime))
	for _, t := range byTime {
		mark := ""
		if t.failed {
			mark = "  FAIL"
		}
		fmt.Fprintf(w, "  %8.1fs  %-12s %s%s\n", t.took.Seconds(), r.dir(t.pkg), t.name, mark)
	}
	r.busiest(w, n)
	target := "lab-test"
	if bench {
		target = "bench"
	}
	var again []string
	for _, t := range r.results {
		if t.failed {
			again = append(again, fmt.Sprintf("  make %s PKGS=%s RUN='^%s$'", target, r.dir(t.pkg), t.name))
		}
	}
	if len(again) > 0 {
		fmt.Fprintln(w, "labtest: to run a failed test again, alone:")
		fmt.Fprintln(w, strings.Join(again, "\n"))
	}
}

// busiest prints the n tests that kept the guest's CPUs busiest, the
// cost the two VMs share the host's cores by (a slow test that only
// waits costs the other VM nothing). Nothing if no test logged it.
func (r *report) busiest(w io.Writer, n int) {
	var byBusy []testResult
	for _, t := range r.results {
		if t.busy > 0 {
			byBusy = append(byBusy, t)
		}
	}
	if len(byBusy) == 0 {
		return
	}
	sort.SliceStable(byBusy, func(i, j int) bool { return byBusy[i].busy > byBusy[j].busy })
	byBusy = byBusy[:min(n, len(byBusy))]
	fmt.Fprintf(w, "labtest: the %d busiest (the guest's CPU-seconds over the test, of 2 vCPUs):\n", len(byBusy))
	for _, t := range byBusy {
		fmt.Fprintf(w, "  %8.1fs  %-12s %s  (%.0f%% of its VM for %.1fs)\n", t.busy, r.dir(t.pkg), t.name, 100*t.busy/2/t.took.Seconds(), t.took.Seconds())
	}
}
