//go:build lab

package verbs

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// labDevice opens the lab's device ($LAB_DEV, rxe0) and closes it at the
// end of the test.
func labDevice(t testing.TB) *Context {
	t.Helper()
	name := os.Getenv("LAB_DEV")
	if name == "" {
		t.Fatal("LAB_DEV is not set: lab tests run inside the lab VM (go run ./lab/labtest)")
	}
	c, err := Open(name)
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

// ownObjects counts this process's objects of a kind in `rdma resource
// show` (the iproute2 oracle). The kernel records the thread that created
// an object, and prints its thread id as "pid"; cgo calls run on any of
// the process's threads, so every thread id of this process counts.
func ownObjects(t *testing.T, kind string) int {
	t.Helper()
	out, err := exec.Command("rdma", "resource", "show", kind).CombinedOutput()
	if err != nil {
		t.Fatalf("rdma resource show %s: %v\n%s", kind, err, out)
	}
	tids, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		for _, tid := range tids {
			if strings.Contains(l+" ", " pid "+tid.Name()+" ") {
				n++
				break
			}
		}
	}
	return n
}

func TestLifecycleTeardownOrder(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	pd, err := c.AllocPD()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := c.CreateCompChannel()
	if err != nil {
		t.Fatal(err)
	}
	cq, err := c.CreateCQ(16, ch, 0)
	if err != nil {
		t.Fatal(err)
	}
	if cq.CQE() < 16 {
		t.Errorf("CQE() = %d, asked for 16", cq.CQE())
	}
	qp, err := pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: QPCap{MaxSendWR: 8, MaxRecvWR: 8, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if qp.Num() == 0 || qp.Cap().MaxSendWR < 8 {
		t.Errorf("QP num %d cap %+v", qp.Num(), qp.Cap())
	}
	if got := ownObjects(t, "qp"); got != 1 {
		t.Errorf("rdma resource show qp lists %d QPs of this process, want 1", got)
	}

	// The bare destroys fail as libibverbs does while something uses them.
	if err := pd.Destroy(); !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "QP ") {
		t.Errorf("PD.Destroy with a QP: %v, want EBUSY naming the QP", err)
	}
	if err := cq.Destroy(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("CQ.Destroy with a QP: %v, want EBUSY", err)
	}

	// Closing the CQ takes the QP with it; the PD then goes alone.
	if err := cq.Close(); err != nil {
		t.Fatalf("CQ.Close: %v", err)
	}
	if _, err := qp.State(); !errors.Is(err, ErrClosed) {
		t.Errorf("QP after its CQ closed: %v, want ErrClosed", err)
	}
	if err := qp.Close(); err != nil {
		t.Errorf("second QP.Close: %v", err)
	}
	if err := qp.Destroy(); !errors.Is(err, ErrClosed) {
		t.Errorf("QP.Destroy after close: %v, want ErrClosed", err)
	}
	if err := pd.Destroy(); err != nil {
		t.Errorf("PD.Destroy after its QP is gone: %v", err)
	}
	if _, err := pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq}); !errors.Is(err, ErrClosed) {
		t.Errorf("CreateQP on a destroyed PD: %v, want ErrClosed", err)
	}
	if got := ownObjects(t, "qp") + ownObjects(t, "cq") + ownObjects(t, "pd"); got != 0 {
		t.Errorf("%d objects of this process left in rdma resource show", got)
	}
	// Closed here, not left to the context's Close: its wrapper could be
	// collected first, and the leak check would report it.
	if err := ch.Close(); err != nil {
		t.Errorf("CompChannel.Close: %v", err)
	}
}

func TestContextCloseDestroysEverything(t *testing.T) {
	labkit.Clean(t)
	c, err := Open(os.Getenv("LAB_DEV"))
	if err != nil {
		t.Fatal(err)
	}
	pd, _ := c.AllocPD()
	ch, _ := c.CreateCompChannel()
	cq, err := c.CreateCQ(8, ch, 0)
	if err != nil {
		t.Fatal(err)
	}
	var qps []*QP
	for _, typ := range []QPType{rdma.QPTypeRC, rdma.QPTypeUC, rdma.QPTypeUD} {
		qp, err := pd.CreateQP(QPInitAttr{Type: typ, SendCQ: cq, RecvCQ: cq, Cap: QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
		if err != nil {
			t.Fatalf("CreateQP(%s): %v", typ, err)
		}
		qps = append(qps, qp)
	}
	if got := ownObjects(t, "qp"); got != 3 {
		t.Errorf("%d QPs listed, want 3", got)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Context.Close: %v", err)
	}
	// The wrappers stay reachable until the context has destroyed what
	// they stand for: the Close under test is the context's, and a
	// wrapper collected before it would be reported by the leak check
	// as the GC happened to run (TestMain's CheckLeaks).
	runtime.KeepAlive(qps)
	runtime.KeepAlive([]any{pd, ch, cq})
	if err := c.Close(); err != nil {
		t.Errorf("second Context.Close: %v", err)
	}
	if got := ownObjects(t, "qp") + ownObjects(t, "cq") + ownObjects(t, "pd"); got != 0 {
		t.Errorf("%d objects of this process left after Context.Close", got)
	}
	if _, err := c.AllocPD(); !errors.Is(err, ErrClosed) {
		t.Errorf("AllocPD on a closed context: %v", err)
	}
}

// TestModifyToRTSLoopback walks two RC QPs to RTS against each other on
// rxe0 and reads the attributes back.
func TestModifyToRTSLoopback(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	pd, _ := c.AllocPD()
	cq, err := c.CreateCQ(16, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	gidIndex, _ := strconv.Atoi(os.Getenv("LAB_GID_INDEX"))
	gid, err := c.QueryGID(1, gidIndex)
	if err != nil {
		t.Fatal(err)
	}
	var qps [2]*QP
	for i := range qps {
		if qps[i], err = pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	for i, qp := range qps {
		peer := qps[1-i]
		steps := []struct {
			attr QPAttr
			mask QPAttrMask
		}{
			{QPAttr{State: rdma.QPStateInit, Port: 1, AccessFlags: rdma.AccessLocalWrite | rdma.AccessRemoteWrite}, rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags},
			{QPAttr{State: rdma.QPStateRTR, PathMTU: rdma.MTU1024, DestQPN: peer.Num(), RQPSN: 100, MaxDestRdAtomic: 1, MinRNRTimer: 12,
				AH: AHAttr{IsGlobal: true, PortNum: 1, GRH: GlobalRoute{DGID: gid.GID, SGIDIndex: uint8(gidIndex), HopLimit: 1}}},
				rdma.AttrState | rdma.AttrAV | rdma.AttrPathMTU | rdma.AttrDestQPN | rdma.AttrRQPSN | rdma.AttrMaxDestRdAtomic | rdma.AttrMinRNRTimer},
			{QPAttr{State: rdma.QPStateRTS, SQPSN: 100, Timeout: 14, RetryCnt: 7, RNRRetry: 7, MaxRdAtomic: 1},
				rdma.AttrState | rdma.AttrSQPSN | rdma.AttrTimeout | rdma.AttrRetryCnt | rdma.AttrRNRRetry | rdma.AttrMaxQPRdAtomic},
		}
		for _, s := range steps {
			if err := qp.Modify(&s.attr, s.mask); err != nil {
				t.Fatalf("QP %d to %s: %v", qp.Num(), s.attr.State, err)
			}
		}
	}
	for i, qp := range qps {
		a, err := qp.Query(rdma.AttrState | rdma.AttrDestQPN | rdma.AttrPathMTU | rdma.AttrSQPSN | rdma.AttrRQPSN | rdma.AttrAV | rdma.AttrTimeout)
		if err != nil {
			t.Fatal(err)
		}
		if a.State != rdma.QPStateRTS || a.DestQPN != qps[1-i].Num() || a.PathMTU != rdma.MTU1024 || a.SQPSN != 100 || a.Timeout != 14 {
			t.Errorf("QP %d: state %s dest %d mtu %s sq_psn %d timeout %d", qp.Num(), a.State, a.DestQPN, a.PathMTU, a.SQPSN, a.Timeout)
		}
		if a.AH.GRH.DGID != gid.GID || !a.AH.IsGlobal {
			t.Errorf("QP %d: AV %+v, want DGID %s global", qp.Num(), a.AH, gid.GID)
		}
	}
	// INIT -> RTS is not a transition: the kernel says EINVAL.
	extra, _ := pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err := extra.Modify(&QPAttr{State: rdma.QPStateRTS}, rdma.AttrState); !errors.Is(err, syscall.EINVAL) {
		t.Errorf("RESET->RTS: %v, want EINVAL", err)
	}
	// Closed here, not left to the context's Close: a wrapper could be
	// collected first, and the leak check would report it.
	if err := errors.Join(extra.Close(), qps[0].Close(), qps[1].Close(), pd.Close(), cq.Close()); err != nil {
		t.Errorf("closing: %v", err)
	}
}
