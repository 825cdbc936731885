package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// Packages run in up to -vms VMs at once. Most lab tests spend their time
// waiting (for a process to listen, a refresh, a screen), so a second VM
// overlaps those waits; the two share the host's cores like any other
// load, which the tests' limits allow for.

// durationsFile keeps each package's last time in the lab cache, so the
// next run can balance the VMs.
const durationsFile = "labtest-durations.json"

// split deals packages to n VMs, longest first, each to the VM with the
// least work so far (known times from the last run; a package never seen
// counts 10 s a test).
func split(pkgs []labPackage, n int, last map[string]float64) [][]labPackage {
	weight := func(p labPackage) float64 {
		if s, ok := last[p.importPath]; ok {
			return s
		}
		return 10 * float64(len(p.tests)+len(p.benchmarks))
	}
	order := append([]labPackage(nil), pkgs...)
	sort.SliceStable(order, func(i, j int) bool { return weight(order[i]) > weight(order[j]) })
	n = max(1, min(n, len(pkgs)))
	groups := make([][]labPackage, n)
	load := make([]float64, n)
	for _, p := range order {
		k := 0
		for i := range load {
			if load[i] < load[k] {
				k = i
			}
		}
		groups[k] = append(groups[k], p)
		load[k] += weight(p)
	}
	return groups
}

func loadDurations(dir string) map[string]float64 {
	m := map[string]float64{}
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
