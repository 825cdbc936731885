package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Tests run in up to -vms VMs at once. Most lab tests spend their time
// waiting (for a process to listen, a refresh, a screen), so a second VM
// overlaps those waits; the two share the host's cores like any other
// load, which the tests' limits allow for. The unit dealt is a test, not
// a package: cli alone holds a third of the suite. Each VM runs a
// package's share of tests in one binary, in one cgroup, so a package
// split between VMs is checked for leftovers in both.

// durationsFile keeps each test's last time in the lab cache, keyed
// "importpath.TestName", so the next run can balance the VMs.
const durationsFile = "labtest-durations.json"

// unknownTest is what a test never timed counts for.
const unknownTest = 10.0

// thenKey keeps the -then step's last time among the tests' (in
// seconds), for the lead the next deal gives it.
const thenKey = "(-then)"

// split deals the tests of pkgs to n VMs, longest first, each to the VM
// with the least work so far, and returns each VM's packages holding only
// its tests (in their files' order). Benchmarks stay whole: they run in
// one VM. The first VM starts with lead seconds of work: the -then step
// that begins when it ends (make test's VM tests), so that it ends that
// much earlier and the step ends with the others, not minutes after.
func split(pkgs []labPackage, n int, last map[string]float64, lead float64) [][]labPackage {
	type item struct {
		pkg  int
		test string
		w    float64
	}
	var items []item
	for i, p := range pkgs {
		for _, t := range p.tests {
			w, ok := last[p.importPath+"."+t]
			if !ok {
				w = unknownTest
			}
			items = append(items, item{i, t, w})
		}
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].w > items[b].w })
	n = max(1, min(n, len(items)))
	load := make([]float64, n)
	load[0] = lead
	mine := make([]map[string]bool, n) // "pkg/test" each VM runs
	for k := range mine {
		mine[k] = map[string]bool{}
	}
	for _, it := range items {
		k := 0
		for v := range load {
			if load[v] < load[k] {
				k = v
			}
		}
		mine[k][pkgs[it.pkg].importPath+"."+it.test] = true
		load[k] += it.w
	}
	groups := make([][]labPackage, n)
	for k := range groups {
		for _, p := range pkgs {
			q := p
			q.tests = nil
			for _, t := range p.tests {
				if mine[k][p.importPath+"."+t] {
					q.tests = append(q.tests, t)
				}
			}
			if len(q.tests) > 0 || (k == 0 && len(p.benchmarks) > 0) {
				groups[k] = append(groups[k], q)
			}
		}
	}
	return groups
}

// shippedDurations are the times of a whole run on a 2-core machine
// (make test's, the -then step's included, at be4f9f5), for a first run
// whose cache has none.
//
//go:embed durations.json
var shippedDurations []byte

func loadDurations(dir string) map[string]float64 {
	m := map[string]float64{}
	json.Unmarshal(shippedDurations, &m)
	if b, err := os.ReadFile(filepath.Join(dir, durationsFile)); err == nil {
		json.Unmarshal(b, &m) // a bad file only loses the balance
	}
	return m
}

func saveDurations(dir string, m map[string]float64) {
	if b, err := json.MarshalIndent(m, "", "  "); err == nil {
		os.WriteFile(filepath.Join(dir, durationsFile), append(b, '\n'), 0o644)
	}
}

// packageWriter holds a VM's output until a package's result line and
// then writes the whole package at once, as go test does for packages run
// in parallel: two VMs' lines never interleave.
type packageWriter struct {
	mu  *sync.Mutex // shared by every VM's writer
	dst io.Writer
	// progress, if set, learns at once that a package started, since
	// its output waits for its end.
	progress func(pkg string)
	block    []byte // whole lines of the package running
	partial  []byte // a line not yet ended
}

func (w *packageWriter) Write(p []byte) (int, error) {
	w.partial = append(w.partial, p...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := w.partial[:i+1]
		w.block = append(w.block, line...)
		w.partial = w.partial[i+1:]
		if m := pkgStartRE.FindSubmatch(bytes.TrimRight(line, "\r\n")); m != nil && w.progress != nil {
			w.progress(string(m[1]))
		}
		if bytes.HasPrefix(line, []byte("ok  \t")) || bytes.HasPrefix(line, []byte("FAIL\t")) {
			if err := w.Flush(); err != nil {
				return 0, err
			}
		}
	}
}

// Flush writes what is held: at a package's end, and when the VM ends
// (a VM that died mid-package still shows what its package printed).
func (w *packageWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := append(w.block, w.partial...)
	w.block, w.partial = nil, nil
	if len(out) == 0 {
		return nil
	}
	_, err := w.dst.Write(out)
	return err
}
