// Command stress hunts flaky tests (make stress): it runs the unit
// tests many times under -race at several GOMAXPROCS with a CPU hog
// beside them, then the lab suite several times in one boot, and ends
// with every test that failed at least once and what it said.
//
// A test that fails one run in fifty passes a single `make test` most
// days and teaches everyone to re-run instead of read; run this after a
// change to anything concurrent, and fix what it finds at its cause.
//
//	go run ./lab/stress [-count 20] [-cpu 1,2,4] [-lab-count 3] [-lab=false] [-hog=false] [PKG...]
//
// The packages (default ./...) narrow both stages. The raw output of
// each stage is kept under .cache/stress-*/ for reading afterwards.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	count := flag.Int("count", 20, "run each unit test `n` times at each -cpu")
	cpu := flag.String("cpu", "1,2,4", "the GOMAXPROCS `list` the unit tests run at (go test -cpu)")
	hog := flag.Bool("hog", true, "keep one core busy beside the unit tests")
	labCount := flag.Int("lab-count", 3, "run each lab test `n` times, in the same boot")
	labOn := flag.Bool("lab", true, "run the lab suite after the unit tests")
	flag.Parse()
	pkgs := flag.Args()
	if len(pkgs) == 0 {
		pkgs = []string{"./..."}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fails, err := run(ctx, *count, *cpu, *hog, *labOn, *labCount, pkgs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(1)
	}
	if fails > 0 {
		os.Exit(1)
	}
}

// run runs the stages and prints the report; it returns how many tests
// failed at least once.
func run(ctx context.Context, count int, cpu string, hog, labOn bool, labCount int, pkgs []string) (int, error) {
	if err := os.MkdirAll(".cache", 0o755); err != nil {
		return 0, err
	}
	keep, err := os.MkdirTemp(".cache", "stress-"+time.Now().Format("20060102-150405")+"-")
	if err != nil {
		return 0, err
	}
	var stages []*tally

	unitOut := filepath.Join(keep, "unit.json")
	what := fmt.Sprintf("unit tests: -race, GOEXPERIMENT=cgocheck2, -count %d, -cpu %s", count, cpu)
	if hog {
		what += ", beside a CPU hog"
	}
	fmt.Fprintf(os.Stderr, "stress: %s (raw output: %s)\n", what, unitOut)
	unit, err := runUnit(ctx, count, cpu, hog, pkgs, unitOut)
	if err != nil {
		return 0, err
	}
	unit.stage = what
	stages = append(stages, unit)

	if labOn && ctx.Err() == nil {
		labOut := filepath.Join(keep, "lab.txt")
		what := fmt.Sprintf("lab suite: -race, -count %d in one boot", labCount)
		fmt.Fprintf(os.Stderr, "stress: %s (raw output: %s)\n", what, labOut)
		lab, err := runLab(ctx, keep, labCount, pkgs, labOut)
		if err != nil {
			return 0, err
		}
		lab.stage = what
		stages = append(stages, lab)
	}
	if ctx.Err() != nil {
		fmt.Fprintln(os.Stderr, "stress: interrupted; the report covers what ran")
	}
	fails := 0
	for _, s := range stages {
		fails += s.print(os.Stdout)
	}
	if fails == 0 {
		fmt.Println("stress: no test failed")
	} else {
		fmt.Printf("stress: %d tests failed at least once (above, each with its first failure)\n", fails)
	}
	return fails, ctx.Err()
}

// runUnit runs go test -json over pkgs, with the hog beside it, and
// tallies its events as they stream.
func runUnit(ctx context.Context, count int, cpu string, hog bool, pkgs []string, raw string) (*tally, error) {
	if hog {
		stop, err := startHog()
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	args := append([]string{"test", "-race", "-json", fmt.Sprintf("-count=%d", count), "-cpu", cpu, "-timeout", unitLimit.String()}, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "GOEXPERIMENT=cgocheck2")
	t := newTally()
	t.progress = os.Stderr
	if err := streamTo(ctx, cmd, raw, t.readJSON); err != nil {
		return nil, err
	}
	return t, nil
}

// runLab runs the lab suite with -count, reading its go test -v output
// (whole packages at a time, as labtest prints them).
func runLab(ctx context.Context, dir string, count int, pkgs []string, raw string) (*tally, error) {
	// Built first and run directly, so that an interrupt reaches
	// labtest itself (go run would stay between), which then stops
	// its VMs.
	bin, err := filepath.Abs(filepath.Join(dir, "labtest"))
	if err != nil {
		return nil, err
	}
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./lab/labtest")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return nil, fmt.Errorf("building the lab runner: %w", err)
	}
	args := append([]string{"-race", "-cgocheck2", fmt.Sprintf("-count=%d", count)}, pkgs...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	t := newTally()
	if err := streamTo(ctx, cmd, raw, t.readVerbose); err != nil {
		return nil, err
	}
	return t, nil
}

// streamTo runs cmd with its output copied to the file raw and read by
// parse. An exit status is not an error (failed tests are the point);
// a command that cannot start is. When ctx ends the command gets
// SIGTERM (go test passes it on to its test binaries; labtest stops
// its VMs) and is killed if still there after stopLimit.
func streamTo(ctx context.Context, cmd *exec.Cmd, raw string, parse func(io.Reader) error) error {
	f, err := os.Create(raw)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(f, pw)
	if cmd.Stderr == nil {
		cmd.Stderr = cmd.Stdout
	}
	// Its own process group, so that a stop reaches go test's test
	// binaries too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", cmd.Path, err)
	}
	parsed := make(chan error, 1)
	go func() {
		err := parse(pr)
		io.Copy(io.Discard, pr) // a parser that stopped early must not block the command
		parsed <- err
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waited:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case werr = <-waited:
		case <-time.After(stopLimit):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			werr = <-waited
		}
	}
	pw.Close()
	if err := <-parsed; err != nil {
		return err
	}
	var exit *exec.ExitError
	if werr != nil && !errors.As(werr, &exit) {
		return werr
	}
	return nil
}

// startHog starts a shell busy loop that takes one core, the load that
// shows which tests wait on time; stop ends it. It also dies with this
// process however that ends (Pdeathsig), so that a killed stress run
// leaves no hog spinning.
func startHog() (stop func(), err error) {
	cmd := exec.Command("sh", "-c", "while :; do :; done")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the CPU hog: %w", err)
	}
	return func() {
		cmd.Process.Kill()
		cmd.Wait()
	}, nil
}
