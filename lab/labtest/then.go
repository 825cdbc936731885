package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// A next step (-then; make test's vm-tagged tests) starts as soon as
// the first VM's share of the suite ends, in the slot it frees, instead
// of after the last: the VMs end minutes apart when the dealt times
// were off (a loaded machine, a test that grew), and the host sat half
// idle meanwhile. Its output is held and printed after the suite's, so
// that neither is cut into the other, and its failure fails the run.

// thenStep is the running next step.
type thenStep struct {
	cmdline string
	cmd     *exec.Cmd
	out     bytes.Buffer
	start   time.Time
	took    time.Duration // once finished
	done    chan error
}

// startThen starts cmdline with sh. When ctx ends, its process group
// (go test and its test binaries) is told SIGTERM, and killed if still
// there after thenStopLimit.
func startThen(ctx context.Context, cmdline string) *thenStep {
	s := &thenStep{cmdline: cmdline, start: time.Now(), done: make(chan error, 1)}
	s.cmd = exec.CommandContext(ctx, "sh", "-c", cmdline)
	s.cmd.Stdout, s.cmd.Stderr = &s.out, &s.out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.Cancel = func() error { return syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM) }
	s.cmd.WaitDelay = thenStopLimit
	fmt.Fprintf(os.Stderr, "labtest: a VM's slot is free: starting %s beside the rest\n", cmdline)
	if err := s.cmd.Start(); err != nil {
		s.done <- err
		return s
	}
	go func() { s.done <- s.cmd.Wait() }()
	return s
}

// finish waits for the step, prints its output under a heading and
// returns its failure.
func (s *thenStep) finish(w io.Writer) error {
	err := <-s.done
	s.took = time.Since(s.start)
	fmt.Fprintf(w, "labtest: %s (started as the first VM ended, took %.0f s):\n", s.cmdline, s.took.Seconds())
	w.Write(s.out.Bytes())
	if err != nil {
		return fmt.Errorf("%s: %w", s.cmdline, err)
	}
	return nil
}
