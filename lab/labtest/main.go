// Command labtest runs the project's lab tests (files tagged //go:build lab)
// inside the lab VM, against the real kernel RDMA stack on rxe0.
//
// It builds one test binary per package with `go test -c -tags lab`, boots
// VMs (two at once by default, the tests dealt between them by their
// last times) with the repository shared at /mnt/host, runs each binary
// from its package folder (so testdata/ resolves) in a cgroup of its own,
// and prints each package's go test output whole when it ends, with the
// usual ok/FAIL line. After each package, whatever it started is killed
// and its verbs objects must be gone (script.go). At the end it lists the
// 15 slowest tests and the command that runs each failed test alone. It
// exits non-zero when a test fails or a VM cannot boot: a lab suite that
// cannot run has failed.
//
//	go run ./lab/labtest [-race] [-cgocheck2] [-run RE] [-bench RE] [-count N] [-vms N] [-then CMD] [PKG...]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/lab"
)

func main() {
	race := flag.Bool("race", false, "build the tests with the race detector")
	cgocheck2 := flag.Bool("cgocheck2", false, "build with GOEXPERIMENT=cgocheck2 (full checks of pointers passed to C)")
	run := flag.String("run", "", "run only tests matching `regexp`")
	bench := flag.String("bench", "", "run benchmarks matching `regexp` (and no tests)")
	count := flag.Int("count", 1, "run each test `n` times")
	timeout := flag.Duration("timeout", 0, "per package's test binary (default 30m for tests, 35m for benchmarks, times -count: limits.go)")
	vms := flag.Int("vms", 2, "run the tests in up to `n` VMs at once (benchmarks always use one)")
	short := flag.Bool("short", false, "pass -test.short")
	cache := flag.String("cache", "", "lab cache `folder` (default $VERBSCOPE_CACHE, else .cache/lab in the repository)")
	verbose := flag.Bool("v", false, "print the guest boot log too")
	// cli's lab tests start verbscope (the plain build, or the race-built
	// one where labkit.RaceBinary asks) and read its screens and output;
	// the race detector in their own binary only slowed the polling
	// (10-20% of their guest CPU, the suite's bulk).
	plain := flag.String("plain", "./cli", "build these packages' test binaries (comma-separated `dirs`) without -race and cgocheck2: their lab tests drive the verbscope binary, not the product in process")
	then := flag.String("then", "", "a shell `command` to start as soon as the first VM ends, beside the rest; its output follows the suite's and its failure fails the run (make test: the vm-tagged tests)")
	flag.Parse()
	if *timeout == 0 {
		*timeout = packageLimit
		if *bench != "" {
			*timeout = benchLimit
		}
		// Each binary runs its tests -count times (make stress).
		*timeout *= time.Duration(max(1, *count))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := runTests(ctx, config{
		race: *race, cgocheck2: *cgocheck2, run: *run, bench: *bench, count: *count,
		timeout: *timeout, vms: *vms, short: *short, cache: *cache, verbose: *verbose, then: *then, pkgs: flag.Args(),
		plain: plainDirs(*plain),
	})
	var exit exitCode
	switch {
	case errors.As(err, &exit):
		os.Exit(int(exit))
	case err != nil:
		fmt.Fprintln(os.Stderr, "labtest:", err)
		os.Exit(1)
	}
}

type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

type config struct {
	race, cgocheck2, short, verbose bool
	run, bench, cache, then         string
	count, vms                      int
	timeout                         time.Duration
	pkgs                            []string
	plain                           map[string]bool // dirs (cli) built without -race and cgocheck2
}

// plainDirs is -plain's list as a set of dirs relative to the module.
func plainDirs(list string) map[string]bool {
	out := map[string]bool{}
	for _, d := range strings.Split(list, ",") {
		if d = strings.TrimSpace(d); d != "" {
			out[filepath.Clean(d)] = true
		}
	}
	return out
}

// labPackage is a package with lab tests.
type labPackage struct {
	importPath, dir, name string
	// tests and benchmarks are the functions the lab-tagged files define:
	// only those run in the guest, since the package's other tests already
	// ran on the host (and are slow under TCG, over 9p).
	tests, benchmarks []string
}

// runTests finds the lab packages c names, builds what the guests run,
// runs the suite in c.vms VMs and reports.
func runTests(ctx context.Context, c config) error {
	mod, err := goOutput(ctx, nil, "list", "-m", "-f", "{{.Dir}}\t{{.Path}}")
	if err != nil {
		return err
	}
	root, module, _ := strings.Cut(mod, "\t")
	if len(c.pkgs) == 0 {
		c.pkgs = []string{"./..."}
	}
	pkgs, err := findLabPackages(ctx, c.pkgs)
	if err != nil {
		return err
	}
	if c.bench == "" {
		pkgs = selectTests(pkgs, c.run)
	}
	if len(pkgs) == 0 {
		return fmt.Errorf("no lab tests (files with //go:build lab) in %s match %q", strings.Join(c.pkgs, " "), c.run)
	}
	out, err := buildDir(root)
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	bins, err := buildGuestFiles(ctx, c, root, out, pkgs)
	if err != nil {
		return err
	}
	return runSuite(ctx, c, suite{root: root, out: out, bins: bins, pkgs: pkgs, rep: &report{module: module}})
}

// buildDir makes a fresh folder under the repository's .cache for the
// test binaries: inside the share, so the guests see them.
func buildDir(root string) (string, error) {
	cache := filepath.Join(root, ".cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(cache, "labtest-")
}

// buildGuestFiles builds one test binary per package into out, and the
// verbscope the guests run; it returns the verbscope binaries.
func buildGuestFiles(ctx context.Context, c config, root, out string, pkgs []labPackage) ([]string, error) {
	env := os.Environ()
	if c.cgocheck2 {
		env = append(env, "GOEXPERIMENT=cgocheck2")
	}
	var checked, plain []string
	for _, p := range pkgs {
		if rel, err := filepath.Rel(root, p.dir); err == nil && c.plain[rel] {
			plain = append(plain, p.importPath)
		} else {
			checked = append(checked, p.importPath)
		}
	}
	fmt.Fprintf(os.Stderr, "labtest: building %d test binaries%s\n", len(pkgs), flagNote(c, len(plain)))
	build := []string{"test", "-c", "-tags", "lab", "-o", out + "/"}
	if len(checked) > 0 {
		flags := build
		if c.race {
			flags = append(flags, "-race")
		}
		if _, err := goOutput(ctx, env, append(flags, checked...)...); err != nil {
			return nil, err
		}
	}
	if len(plain) > 0 {
		if _, err := goOutput(ctx, os.Environ(), append(build, plain...)...); err != nil {
			return nil, err
		}
	}
	// The guest's verbscope is the plain build, the binary people run,
	// built as `make build` builds it (make vet has compiled what it
	// needs: seconds, not the minutes of another toolchain setting).
	// With -race, the race-built one (GOEXPERIMENT=cgocheck2 too, as
	// asked) goes beside it as verbscope-race, for the tests that ask
	// for it (labkit.RaceBinary).
	bins := []string{filepath.Join(out, "verbscope")}
	if err := goBuild(ctx, root, os.Environ(), bins[0]); err != nil {
		return nil, err
	}
	if c.race {
		bins = append(bins, filepath.Join(out, "verbscope-race"))
		if err := goBuild(ctx, root, env, bins[1], "-race"); err != nil {
			return nil, err
		}
	}
	return bins, nil
}

// suite is what runSuite runs: the packages, their binaries in out, the
// guests' verbscope, and the report that collects their output.
type suite struct {
	root, out string
	bins      []string
	pkgs      []labPackage
	rep       *report
}

// runSuite deals the packages to VMs by their last times, runs them (and
// c.then once the first VM ends), keeps this run's times for the next
// deal, and prints the summary.
func runSuite(ctx context.Context, c config, st suite) error {
	cacheDir := c.cache
	if cacheDir == "" {
		cacheDir = os.Getenv("VERBSCOPE_CACHE")
	}
	if cacheDir == "" {
		cacheDir = filepath.Join(st.root, ".cache", "lab")
	}
	// Benchmarks measure: they never share the host with another VM.
	vms := c.vms
	if c.bench != "" {
		vms = 1
	}
	durations := loadDurations(cacheDir)
	var lead float64
	if c.then != "" {
		lead = durations[thenKey]
	}
	groups := split(st.pkgs, vms, durations, lead)
	var (
		mu       sync.Mutex
		wg       sync.WaitGroup
		codes    = make([]int, len(groups))
		errs     = make([]error, len(groups))
		finished = make(chan struct{}, len(groups)) // a VM's share ended
	)
	for i, g := range groups {
		w := &packageWriter{mu: &mu, dst: io.MultiWriter(os.Stdout, st.rep), progress: func(pkg string) {
			fmt.Fprintf(os.Stderr, "labtest: VM %d: %s started\n", i+1, pkg)
		}}
		l, err := lab.New(ctx, &lab.Cache{Dir: cacheDir}, lab.Options{
			Share: st.root, Bin: st.bins,
			Timeout: time.Duration(len(g))*(c.timeout+releaseLimit) + bootLimit, Verbose: c.verbose,
			Out: w,
		})
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], errs[i] = l.Run(ctx, guestScript(c, st.root, st.out, g))
			w.Flush()
			finished <- struct{}{}
		}()
	}
	var next *thenStep
	if c.then != "" {
		<-finished
		if ctx.Err() == nil {
			next = startThen(ctx, c.then)
		}
	}
	wg.Wait()
	code, err := 0, errors.Join(errs...)
	for _, c := range codes {
		code = max(code, c)
	}
	if c.run == "" && c.bench == "" {
		last := loadDurations(cacheDir)
		maps.Copy(last, st.rep.took)
		saveDurations(cacheDir, last)
	}
	st.rep.summary(os.Stdout, 15, c.bench != "")
	if next != nil {
		err = errors.Join(err, next.finish(os.Stdout))
		if c.run == "" {
			last := loadDurations(cacheDir)
			last[thenKey] = next.took.Seconds()
			saveDurations(cacheDir, last)
		}
	}
	if err != nil {
		return err
	}
	if code != 0 {
		return exitCode(code)
	}
	return nil
}

// goBuild builds verbscope (the module's main package, in root) to dst.
func goBuild(ctx context.Context, root string, env []string, dst string, flags ...string) error {
	args := append(append([]string{"build"}, flags...), "-o", dst, ".")
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env, cmd.Stderr = root, env, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("build %s for the guest: %w", filepath.Base(dst), err)
	}
	return nil
}

func flagNote(c config, plain int) string {
	var f []string
	if c.race {
		f = append(f, "-race")
	}
	if c.cgocheck2 {
		f = append(f, "GOEXPERIMENT=cgocheck2")
	}
	if plain > 0 && (c.race || c.cgocheck2) {
		f = append(f, fmt.Sprintf("but %d plain (-plain)", plain))
	}
	if len(f) == 0 {
		return ""
	}
	return " (" + strings.Join(f, ", ") + ")"
}

// selectTests keeps the tests the user's -run pattern (its top-level
// part) selects, and the packages left with any.
func selectTests(pkgs []labPackage, run string) []labPackage {
	top, _, _ := strings.Cut(run, "/")
	re, err := regexp.Compile(top)
	if err != nil {
		return nil
	}
	var out []labPackage
	for _, p := range pkgs {
		var keep []string
		for _, t := range p.tests {
			if re.MatchString(t) {
				keep = append(keep, t)
			}
		}
		if len(keep) > 0 {
			p.tests = keep
			out = append(out, p)
		}
	}
	return out
}

// selectPattern is a -test.run pattern for the names that the user's
// pattern (go test syntax: top-level/subtest) selects among names. A
// pattern that selects none of them gives one that matches nothing.
func selectPattern(names []string, user string) string {
	top, sub, hasSub := strings.Cut(user, "/")
	var keep []string
	re, err := regexp.Compile(top)
	for _, n := range names {
		if user == "" || (err == nil && re.MatchString(n)) {
			keep = append(keep, regexp.QuoteMeta(n))
		}
	}
	if len(keep) == 0 {
		return "^$"
	}
	pat := "^(" + strings.Join(keep, "|") + ")$"
	if hasSub {
		pat += "/" + sub
	}
	return pat
}

// labBuildRE is the build constraint of a lab test file.
var labBuildRE = regexp.MustCompile(`(?m)^//go:build lab$`)

var funcRE = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark)[A-Z0-9_]\w*)\(`)

// funcNames lists the top-level test (or benchmark) functions of a file.
func funcNames(src []byte, prefix string) []string {
	var out []string
	for _, m := range funcRE.FindAllSubmatch(src, -1) {
		if name := string(m[1]); strings.HasPrefix(name, prefix) && name != "TestMain" {
			out = append(out, name)
		}
	}
	return out
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// findLabPackages lists the packages among patterns that have test files
// built only with the lab tag.
func findLabPackages(ctx context.Context, patterns []string) ([]labPackage, error) {
	args := append([]string{"list", "-tags", "lab", "-f", "{{.ImportPath}}\t{{.Dir}}\t{{.Name}}\t{{join .TestGoFiles \",\"}}\t{{join .XTestGoFiles \",\"}}\t."}, patterns...)
	text, err := goOutput(ctx, nil, args...)
	if err != nil {
		return nil, err
	}
	var pkgs []labPackage
	for _, line := range strings.Split(text, "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 { // the trailing "." keeps empty fields from being trimmed
			continue
		}
		// go test -c -o DIR/ names each binary after the last element of
		// its import path.
		p := labPackage{importPath: f[0], dir: f[1], name: path.Base(f[0])}
		for _, file := range strings.Split(f[3]+","+f[4], ",") {
			if file == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(f[1], file))
			if err != nil {
				return nil, err
			}
			if labBuildRE.Match(data) {
				p.tests = append(p.tests, funcNames(data, "Test")...)
				p.benchmarks = append(p.benchmarks, funcNames(data, "Benchmark")...)
			}
		}
		if len(p.tests)+len(p.benchmarks) > 0 {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, nil
}

func goOutput(ctx context.Context, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
