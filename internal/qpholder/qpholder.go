// Package qpholder makes a lab test binary double as the "other
// process" of inspector tests and benchmarks: re-run with an environment
// variable (Start; the binary's TestMain calls Main first), it creates that many RC QPs on $LAB_DEV, moves them to INIT
// (or on to RTS, each connected to itself), says "ready N" and holds
// them until its stdin closes. StartAs also gives it a comm of the test's
// choosing (any bytes but NUL, as a process may choose its own), to see
// what the views make of it. StartChurn makes it create, set up and
// destroy QPs as fast as it can for a while instead.
package qpholder

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// env carries the count to the re-run binary, envRTS the wish for RTS,
// commEnv its comm.
const (
	env     = "VERBSCOPE_HOLD_QPS"
	envRTS  = "VERBSCOPE_HOLD_RTS"
	commEnv = "VERBSCOPE_HOLD_COMM"
	keepEnv = "VERBSCOPE_HOLD_KEEPER"
	// churnEnv carries the churn's duration.
	churnEnv = "VERBSCOPE_CHURN"
)

// Main is the first call of a TestMain: in the re-run binary it holds
// the QPs and exits; otherwise it returns at once.
func Main() {
	if n := os.Getenv(env); n != "" {
		os.Exit(hold(n))
	}
	if d := os.Getenv(churnEnv); d != "" {
		os.Exit(churn(d))
	}
}

// fail is how the re-run binary ends on an error: said on stderr, which
// the test's output shows.
func fail(err error) int { fmt.Fprintln(os.Stderr, "holder:", err); return 1 }

// verbsSetup opens $LAB_DEV with a PD and a CQ for the QPs, and the
// modifies that take a QP to INIT, or on to RTS when rts is set.
func verbsSetup(rts bool) (*verbs.Context, *verbs.PD, *verbs.CQ, []step, error) {
	ctx, err := verbs.Open(os.Getenv("LAB_DEV"))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	pd, err := ctx.AllocPD()
	if err != nil {
		ctx.Close()
		return nil, nil, nil, nil, err
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		ctx.Close()
		return nil, nil, nil, nil, err
	}
	steps := []step{{verbs.QPAttr{State: rdma.QPStateInit, Port: 1}, rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags}}
	if rts {
		more, err := toRTS(ctx)
		if err != nil {
			ctx.Close()
			return nil, nil, nil, nil, err
		}
		steps = append(steps, more...)
	}
	return ctx, pd, cq, steps, nil
}

// caps are the holder's QPs' queues: the least a QP has.
var caps = verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}

// setUp creates an RC QP and takes it through steps, each connected to
// itself.
func setUp(pd *verbs.PD, cq *verbs.CQ, steps []step) (*verbs.QP, error) {
	qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: caps})
	if err != nil {
		return nil, err
	}
	for _, s := range steps {
		s.attr.DestQPN = qp.Num() // RTR: connected to itself
		if err := qp.Modify(&s.attr, s.mask); err != nil {
			qp.Close()
			return nil, fmt.Errorf("to %s: %w", s.attr.State, err)
		}
	}
	return qp, nil
}

// churn creates QPs, takes each to RTS and destroys it, one after the
// other as fast as it can, for the duration arg; then it says "churned
// QPS MODIFIES" (the modifies that succeeded) and exits.
func churn(arg string) int {
	d, err := time.ParseDuration(arg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: want a duration\n", churnEnv, arg)
		return 2
	}
	ctx, pd, cq, steps, err := verbsSetup(true)
	if err != nil {
		return fail(err)
	}
	defer ctx.Close()
	qps := 0
	for end := time.Now().Add(d); time.Now().Before(end); qps++ {
		qp, err := setUp(pd, cq, steps)
		if err != nil {
			return fail(fmt.Errorf("QP %d: %w", qps+1, err))
		}
		if err := qp.Close(); err != nil {
			return fail(fmt.Errorf("destroy QP %d: %w", qps+1, err))
		}
	}
	fmt.Printf("churned %d %d\n", qps, qps*len(steps))
	return 0
}

func hold(arg string) int {
	n, err := strconv.Atoi(arg)
	if err != nil || n <= 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: want a count\n", env, arg)
		return 2
	}
	if comm := os.Getenv(commEnv); comm != "" {
		// The kernel records the thread that creates each object:
		// keep to one thread, and rename every thread, so whichever
		// task a view reads the comm of, it reads this one.
		runtime.LockOSThread()
		if err := setComm(comm); err != nil {
			return fail(err)
		}
	}
	ctx, pd, cq, steps, err := verbsSetup(os.Getenv(envRTS) != "")
	if err != nil {
		return fail(err)
	}
	defer ctx.Close() // destroys QPs, CQ and PD, children first
	for i := 0; i < n; i++ {
		if _, err := setUp(pd, cq, steps); err != nil {
			return fail(fmt.Errorf("QP %d of %d: %w", i+1, n, err))
		}
	}
	if os.Getenv(keepEnv) != "" {
		pid, err := startKeeper()
		if err != nil {
			return fail(err)
		}
		fmt.Printf("keeper %d\n", pid)
	}
	fmt.Printf("ready %d\n", n)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// startKeeper starts a sleep that inherits this process's uverbs files:
// the objects on them outlive this process (ib_uverbs frees a file's
// objects when its last reference closes), so killed, it leaves them
// as a dead process's until the keeper ends.
func startKeeper() (int, error) {
	fds, err := filepath.Glob("/proc/self/fd/*")
	if err != nil {
		return 0, err
	}
	var files []*os.File
	for _, fd := range fds {
		target, err := os.Readlink(fd)
		if err != nil || !strings.HasPrefix(target, "/dev/infiniband/uverbs") {
			continue
		}
		n, _ := strconv.Atoi(filepath.Base(fd))
		files = append(files, os.NewFile(uintptr(n), target))
	}
	if len(files) == 0 {
		return 0, fmt.Errorf("no /dev/infiniband/uverbs file open in /proc/self/fd")
	}
	keeper := exec.Command("sleep", "600")
	keeper.ExtraFiles = files
	if err := keeper.Start(); err != nil {
		return 0, fmt.Errorf("start the keeper: %w", err)
	}
	return keeper.Process.Pid, nil
}

// step is one modify of each QP.
type step struct {
	attr verbs.QPAttr
	mask rdma.QPAttrMask
}

// toRTS are the RTR and RTS steps, with rc_pingpong's values and the
// lab's GID ($LAB_GID_INDEX); the RTR's DestQPN is filled per QP.
func toRTS(ctx *verbs.Context) ([]step, error) {
	idx, err := strconv.Atoi(os.Getenv("LAB_GID_INDEX"))
	if err != nil {
		return nil, fmt.Errorf("LAB_GID_INDEX: %w", err)
	}
	gid, err := ctx.QueryGID(1, idx)
	if err != nil {
		return nil, err
	}
	return []step{
		{verbs.QPAttr{State: rdma.QPStateRTR, PathMTU: rdma.MTU1024, MaxDestRdAtomic: 1, MinRNRTimer: 12,
			AH: verbs.AHAttr{IsGlobal: true, PortNum: 1, GRH: verbs.GlobalRoute{DGID: gid.GID, SGIDIndex: uint8(idx), HopLimit: 1}}},
			rdma.AttrState | rdma.AttrAV | rdma.AttrPathMTU | rdma.AttrDestQPN | rdma.AttrRQPSN | rdma.AttrMaxDestRdAtomic | rdma.AttrMinRNRTimer},
		{verbs.QPAttr{State: rdma.QPStateRTS, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1},
			rdma.AttrState | rdma.AttrSQPSN | rdma.AttrTimeout | rdma.AttrRetryCnt | rdma.AttrRNRRetry | rdma.AttrMaxQPRdAtomic},
	}, nil
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

// Start re-runs the test binary as the holder of n QPs in INIT and
// waits until they exist; stop releases them.
func Start(tb testing.TB, n int) (pid uint32, stop func()) {
	h := start(tb, n, nil)
	return h.pid, h.stop
}

// StartRTS is Start with the QPs moved on to RTS, each connected to
// itself: three modifies per QP.
func StartRTS(tb testing.TB, n int) (pid uint32, stop func()) {
	h := start(tb, n, []string{envRTS + "=1"})
	return h.pid, h.stop
}

// StartAs is Start with the holder named comm.
func StartAs(tb testing.TB, n int, comm string) (pid uint32, stop func()) {
	h := start(tb, n, []string{commEnv + "=" + comm})
	return h.pid, h.stop
}

// StartKept is Start with a keeper: a child process that shares the
// holder's uverbs files. Killing the holder (SIGKILL) leaves its objects
// to a dead process until the keeper is killed too; stop does both.
func StartKept(tb testing.TB, n int) (pid, keeper uint32, stop func()) {
	h := start(tb, n, []string{keepEnv + "=1"})
	if h.keeper == 0 {
		h.stop()
		tb.Fatal("QP holder: no keeper started")
	}
	return h.pid, h.keeper, func() {
		syscall.Kill(int(h.keeper), syscall.SIGKILL)
		h.stop()
	}
}

// holder is a started holder: its pid, its keeper's (0 without one), and
// stop, which closes its stdin and waits for it.
type holder struct {
	pid, keeper uint32
	stop        func()
}

func start(tb testing.TB, n int, extra []string) holder {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), env+"="+strconv.Itoa(n)), extra...)
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
	h := holder{pid: uint32(cmd.Process.Pid), stop: func() { in.Close(); cmd.Wait() }}
	stop := h.stop
	r := bufio.NewReader(out)
	line, err := r.ReadString('\n')
	if k, ok := strings.CutPrefix(strings.TrimSpace(line), "keeper "); ok && err == nil {
		p, _ := strconv.Atoi(k)
		h.keeper = uint32(p)
		line, err = r.ReadString('\n')
	}
	if err != nil || strings.TrimSpace(line) != "ready "+strconv.Itoa(n) {
		stop()
		tb.Fatalf("QP holder: %q %v", line, err)
	}
	state := "INIT"
	if slices.Contains(extra, envRTS+"=1") {
		state = "RTS"
	}
	tb.Logf("a helper process (pid %d) created %d RC QPs in %s in %v", cmd.Process.Pid, n, state, time.Since(t0).Round(time.Millisecond))
	return h
}

// StartChurn re-runs the test binary to create RC QPs, take each to RTS
// (three modifies, connected to itself) and destroy it, one after the
// other as fast as it can, for d. wait waits for it to end and returns
// how many QPs it made and how many modifies succeeded.
func StartChurn(tb testing.TB, d time.Duration) (pid uint32, wait func() (qps, modifies int)) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), churnEnv+"="+d.String())
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return uint32(cmd.Process.Pid), func() (int, int) {
		if err := cmd.Wait(); err != nil {
			tb.Fatalf("QP churn: %v: %s", err, out.String())
		}
		var qps, mods int
		if _, err := fmt.Sscanf(out.String(), "churned %d %d", &qps, &mods); err != nil {
			tb.Fatalf("QP churn said %q: %v", out.String(), err)
		}
		return qps, mods
	}
}
