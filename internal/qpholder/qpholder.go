// Package qpholder makes a lab test binary double as the "other
// process" of inspector tests and benchmarks: re-run with an environment
// variable, it creates that many RC QPs on $LAB_DEV, moves them to INIT,
// says "ready N" and holds them until its stdin closes. StartAs also
// gives it a comm of the test's choosing (any bytes but NUL, as a process
// may choose its own), to see what the views make of it.
package qpholder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// env carries the count to the re-run binary, commEnv its comm.
const (
	env     = "VERBSCOPE_HOLD_QPS"
	commEnv = "VERBSCOPE_HOLD_COMM"
)

// Main is the first call of a TestMain: in the re-run binary it holds
// the QPs and exits; otherwise it returns at once.
func Main() {
	if n := os.Getenv(env); n != "" {
		os.Exit(hold(n))
	}
}

func hold(arg string) int {
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: want a count\n", env, arg)
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "holder:", err); return 1 }
	if comm := os.Getenv(commEnv); comm != "" {
		// The kernel records the thread that creates each object:
		// keep to one thread, and rename every thread, so whichever
		// task a view reads the comm of, it reads this one.
		runtime.LockOSThread()
		if err := setComm(comm); err != nil {
			return fail(err)
		}
	}
	ctx, err := verbs.Open(os.Getenv("LAB_DEV"))
	if err != nil {
		return fail(err)
	}
	defer ctx.Close() // destroys QPs, CQ and PD, children first
	pd, err := ctx.AllocPD()
	if err != nil {
		return fail(err)
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		return fail(err)
	}
	caps := verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}
	for i := 0; i < n; i++ {
		qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: caps})
		if err != nil {
			return fail(fmt.Errorf("QP %d of %d: %w", i+1, n, err))
		}
		if err := qp.Modify(&verbs.QPAttr{State: rdma.QPStateInit, Port: 1}, rdma.AttrState|rdma.AttrPKeyIndex|rdma.AttrPort|rdma.AttrAccessFlags); err != nil {
			return fail(fmt.Errorf("QP %d to INIT: %w", i+1, err))
		}
	}
	fmt.Printf("ready %d\n", n)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// setComm writes comm to every thread's /proc/self/task/TID/comm
// (proc(5)); the kernel keeps its first 15 bytes.
func setComm(comm string) error {
	tasks, err := filepath.Glob("/proc/self/task/*/comm")
	if err != nil || len(tasks) == 0 {
		return fmt.Errorf("set comm: no threads under /proc/self/task: %v", err)
	}
	for _, f := range tasks {
		if err := os.WriteFile(f, []byte(comm), 0); err != nil {
			return fmt.Errorf("set comm: %w", err)
		}
	}
	return nil
}

// Start re-runs the test binary as the holder of n QPs and waits until
// they exist; stop releases them.
func Start(tb testing.TB, n int) (pid uint32, stop func()) { return StartAs(tb, n, "") }

// StartAs is Start with the holder named comm ("" keeps the test
// binary's name).
func StartAs(tb testing.TB, n int, comm string) (pid uint32, stop func()) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env+"="+strconv.Itoa(n))
	if comm != "" {
		cmd.Env = append(cmd.Env, commEnv+"="+comm)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	stop = func() { in.Close(); cmd.Wait() }
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready "+strconv.Itoa(n) {
		stop()
		tb.Fatalf("QP holder: %q %v", line, err)
	}
	tb.Logf("a helper process (pid %d) created %d RC QPs in INIT in %v", cmd.Process.Pid, n, time.Since(t0).Round(time.Millisecond))
	return uint32(cmd.Process.Pid), stop
}
