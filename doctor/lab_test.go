//go:build lab

package doctor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// The kernel names the thread that created an object as its owner. The
// leak helper creates its QP from TestMain, on the main goroutine; locking
// that goroutine to the main thread here makes the QP's "pid" the
// helper's pid, so the zombie case below sees it.
func init() { runtime.LockOSThread() }

const leakEnv = "VERBSCOPE_DOCTOR_LEAK_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(leakEnv) != "" {
		leakHelper()
		return
	}
	os.Exit(m.Run())
}

// leakHelper makes a context, PD, CQ, MR and RC QP on the lab device,
// gives its uverbs descriptor to a `sleep` child (as fd 3), prints the
// QP number and the child's pid, and exits without destroying anything:
// the process that created the objects is dead, the objects live on.
func leakHelper() {
	fail := func(err error) { fmt.Println("error:", err); os.Exit(1) }
	ctx, err := verbs.Open(os.Getenv("LAB_DEV"))
	if err != nil {
		fail(err)
	}
	pd, err := ctx.AllocPD()
	if err != nil {
		fail(err)
	}
	if _, err := pd.RegMR(4096, rdma.AccessLocalWrite); err != nil {
		fail(err)
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		fail(err)
	}
	qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq,
		Cap: verbs.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		fail(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		fail(err)
	}
	fd := -1
	for _, e := range fds {
		if t, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); strings.HasPrefix(t, "/dev/infiniband/uverbs") {
			fd, _ = strconv.Atoi(e.Name())
		}
	}
	if fd < 0 {
		fail(fmt.Errorf("no uverbs descriptor in /proc/self/fd"))
	}
	child := exec.Command("sleep", "600")
	child.ExtraFiles = []*os.File{os.NewFile(uintptr(fd), "uverbs")}
	if err := child.Start(); err != nil {
		fail(err)
	}
	fmt.Printf("qpn=%d holder=%d\n", qp.Num(), child.Process.Pid)
	os.Exit(0) // no Close: that is the point
}

// rdmaQP is one QP of `rdma -j resource show qp`.
func rdmaQP(t *testing.T, lqpn uint32) (oracle.RdmaObject, bool) {
	objs, err := oracle.ParseRdmaJSON(labkit.RdmaJSON(t, "qp"))
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if n, ok := o.Values["lqpn"].(json.Number); ok && n.String() == strconv.FormatUint(uint64(lqpn), 10) {
			return o, true
		}
	}
	return oracle.RdmaObject{}, false
}

func liveFacts(t *testing.T, ids ...string) (*Facts, *Report) {
	t.Helper()
	fs, err := sysfsmon.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	sel, err := Select(ids)
	if err != nil {
		t.Fatal(err)
	}
	f := Gather(fs, true, Options{Needs: NeedsOf(sel)})
	return f, Run(f, sel)
}

// A process creates verbs objects, hands its uverbs descriptor to a child
// and exits. rdma resource show still lists its QP: first with its pid
// (the process is a zombie until reaped), then without one. doctor's leaks
// check fails both times, naming the dead owner and the child that holds
// the descriptor, and passes once the child is gone and rdma shows the
// objects gone too.
func TestLeakedByDeadProcess(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), leakEnv+"=1")
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("leak helper: %v (%q)", err, line)
	}
	var qpn uint32
	var holder int
	if _, err := fmt.Sscanf(line, "qpn=%d holder=%d", &qpn, &holder); err != nil {
		t.Fatalf("leak helper said %q", line)
	}
	t.Cleanup(func() {
		syscall.Kill(holder, syscall.SIGKILL)
		helper.Wait()
	})
	pid := helper.Process.Pid
	fs, err := sysfsmon.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	labkit.WaitFor(t, labkit.Step, "the helper to exit (a zombie, not reaped)", func() bool {
		p, err := fs.Process(pid)
		return err == nil && p.Zombie()
	})

	// The zombie still owns the QP, by pid.
	qp, ok := rdmaQP(t, qpn)
	if !ok {
		t.Fatalf("rdma resource show has no QP %d", qpn)
	}
	if got := fmt.Sprint(qp.Values["pid"]); got != strconv.Itoa(pid) {
		t.Fatalf("rdma: QP %d has pid %s, want the helper's %d", qpn, got, pid)
	}
	comm := fmt.Sprint(qp.Values["comm"])
	_, rep := liveFacts(t, "leaks", "limits")
	c := rep.Checks[0]
	t.Logf("zombie owner: %s: %s; fixes: %q", c.Verdict, c.Summary, c.Fix)
	want := fmt.Sprintf("%s: 1 QP (lqpn %d), 1 CQ, 1 MR, 1 PD and 1 context of pid %d (%s), which has exited and is a zombie: they live on because pid %d (sleep) holds /dev/infiniband/uverbs0 as fd 3",
		dev, qpn, pid, comm, holder)
	if c.Verdict != Fail || c.Summary != want {
		t.Errorf("leaks with a zombie owner: %s: %s\nwant: %s", c.Verdict, c.Summary, want)
	}
	if !strings.Contains(strings.Join(c.Fix, "\n"), fmt.Sprintf("kill %d (sleep)", holder)) {
		t.Errorf("fixes do not say to kill the holder: %q", c.Fix)
	}
	if rep.Checks[1].Verdict != Pass || !strings.Contains(evidenceOf(rep.Checks[1], dev+" QPs"), fmt.Sprintf("most by pid %d (%s): 1", pid, comm)) {
		t.Errorf("limits: %+v", rep.Checks[1])
	}

	// Reaped: the kernel no longer sends a pid; the child still holds it.
	if err := helper.Wait(); err != nil {
		t.Fatalf("leak helper: %v", err)
	}
	qp, ok = rdmaQP(t, qpn)
	if !ok || qp.Values["pid"] != nil {
		t.Fatalf("rdma after the reap: QP %d present %v, pid %v", qpn, ok, qp.Values["pid"])
	}
	_, rep = liveFacts(t, "leaks")
	c = rep.Checks[0]
	t.Logf("reaped owner: %s: %s", c.Verdict, c.Summary)
	want = fmt.Sprintf("%s: 1 QP (lqpn %d), 1 CQ, 1 MR, 1 PD and 1 context of a task that has exited (the kernel no longer reports its pid): pid %d (sleep) holds /dev/infiniband/uverbs0 as fd 3 without a context of its own;",
		dev, qpn, holder)
	// Without a pid, netlink cannot tell a dead process from a live
	// one's ended thread: a warning that names the holder.
	if c.Verdict != Warn || !strings.HasPrefix(c.Summary, want) {
		t.Errorf("leaks with a reaped owner: %s: %s\nwant: %s", c.Verdict, c.Summary, want)
	}

	// The holder goes: so do the objects, for rdma and for doctor.
	if err := syscall.Kill(holder, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	labkit.WaitFor(t, labkit.Step, "the leaked QP to go", func() bool { _, ok := rdmaQP(t, qpn); return !ok })
	_, rep = liveFacts(t, "leaks")
	if c := rep.Checks[0]; c.Verdict != Pass {
		t.Errorf("leaks after the holder died: %s: %s", c.Verdict, c.Summary)
	}
}

func evidenceOf(r Result, what string) string {
	for _, e := range r.Evidence {
		if e.What == what {
			return e.Value
		}
	}
	return ""
}

// Gather on the live lab: libibverbs' limits and vectors are ibv_devinfo's,
// the netlink snapshot is rdma's, the probe works and leaves nothing.
func TestGatherLab(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	before := labkit.RdmaJSON(t, "")
	f, rep := liveFacts(t)
	out, err := exec.Command("ibv_devinfo", "-v").Output()
	if err != nil {
		t.Fatal(err)
	}
	di, err := oracle.ParseDevinfo(string(out))
	if err != nil {
		t.Fatal(err)
	}
	v := f.Verbs.Open[dev]
	if v.Err != nil || v.Attr == nil {
		t.Fatalf("libibverbs: %+v", v)
	}
	for field, got := range map[string]int{"max_qp": v.Attr.MaxQP, "max_cq": v.Attr.MaxCQ, "max_mr": v.Attr.MaxMR,
		"max_pd": v.Attr.MaxPD, "max_srq": v.Attr.MaxSRQ, "num_comp_vectors": v.NumCompVectors} {
		if strconv.Itoa(got) != di.Devices[0].Fields[field] {
			t.Errorf("%s: %d, ibv_devinfo says %s", field, got, di.Devices[0].Fields[field])
		}
	}
	qps, err := oracle.ParseRdmaJSON(labkit.RdmaJSON(t, "qp"))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Netlink.QPs) != len(qps) {
		t.Errorf("netlink snapshot has %d QPs, rdma %d", len(f.Netlink.QPs), len(qps))
	}
	if len(f.Probes) != 1 || f.Probes[0].failed() != nil || f.Probes[0].QPState != "INIT" || f.Probes[0].LKey == 0 || f.Probes[0].MRSize != DefaultMRSize {
		t.Errorf("probe: %+v", f.Probes)
	}
	if !rep.OK() {
		t.Errorf("failed checks on the healthy lab: %v", rep.Summary.Failed)
	}
	if after := labkit.RdmaJSON(t, ""); string(after) != string(before) {
		t.Errorf("rdma resource show before Gather:\n%s\nafter:\n%s", before, after)
	}
}
