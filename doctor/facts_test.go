package doctor

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/oracle"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// The facts of the unit tests: sysfsmon's fixture trees (the lab's rxe0
// as recorded, a hand-built mlx5 host), read through sysfsmon, plus the
// parts only a live system has (libibverbs, netlink, the probe, procfs
// owners) built by hand from what the lab showed.

const fixtures = "../sysfsmon/testdata"

// treeFacts reads a fixture tree the way Gather reads the host.
func treeFacts(t *testing.T, name string) *Facts {
	t.Helper()
	dir := filepath.Join(fixtures, name)
	fs, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir))
	if err != nil {
		t.Fatal(err)
	}
	f := Gather(fs, false, Options{Needs: NeedsOf(Checks)})
	if f.DevicesErr != nil || f.IRQsErr != nil {
		t.Fatalf("fixture %s: %v, %v", name, f.DevicesErr, f.IRQsErr)
	}
	return f
}

// rxe0DevNodes is /dev/infiniband as the lab shows it (dev-infiniband.txt
// of the fixture; git keeps no device nodes).
func rxe0DevNodes() []sysfsmon.DevNode {
	return []sysfsmon.DevNode{
		{Name: "issm0", Mode: "crw-------", CharDev: true, IBDev: "rxe0", MajorMin: "231:64"},
		{Name: "rdma_cm", Mode: "crw-rw-rw-", CharDev: true, WorldRW: true},
		{Name: "umad0", Mode: "crw-------", CharDev: true, IBDev: "rxe0", MajorMin: "231:0"},
		{Name: "uverbs0", Mode: "crw-rw-rw-", CharDev: true, WorldRW: true, IBDev: "rxe0", MajorMin: "231:192"},
	}
}

// recordedAttr is ibv_query_device's answer for rxe0, from the fixture's
// recorded `ibv_devinfo -v` (the oracle's parser reads it).
func recordedAttr(t *testing.T) (verbs.DeviceAttr, int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, "rxe0/ibv_devinfo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := oracle.ParseDevinfo(string(b))
	if err != nil || len(d.Devices) != 1 {
		t.Fatalf("ibv_devinfo.txt: %v", err)
	}
	num := func(k string) int {
		n, err := strconv.Atoi(d.Devices[0].Fields[k])
		if err != nil {
			t.Fatalf("ibv_devinfo.txt: %s: %v", k, err)
		}
		return n
	}
	return verbs.DeviceAttr{MaxQP: num("max_qp"), MaxCQ: num("max_cq"), MaxMR: num("max_mr"), MaxPD: num("max_pd"), MaxSRQ: num("max_srq"), PhysPortCnt: 1},
		num("num_comp_vectors")
}

func kernObj(dev, mod string) inspect.Object {
	o := inspect.Object{DevIndex: 1, DevName: dev, KernName: mod, Comm: mod}
	o.Attrs.Add(inspect.AttrResKernName)
	return o
}

// userObj is an object of a live process; pid 0 plays one whose creating
// task is gone, for which the kernel sends no pid.
func userObj(dev string, pid uint32, comm string) inspect.Object {
	owner := inspect.OwnerLive
	if pid == 0 {
		owner = inspect.OwnerExited
	}
	return ownedObj(dev, pid, pid, comm, owner)
}

// ownedObj is an object whose creating task pid (of process tgid) is in
// the state owner, as inspect reads it from /proc.
func ownedObj(dev string, pid, tgid uint32, comm string, owner inspect.Owner) inspect.Object {
	o := inspect.Object{DevIndex: 1, DevName: dev, PID: pid, TGID: tgid, Comm: comm, Owner: owner}
	if pid != 0 {
		o.Attrs.Add(inspect.AttrResPID)
	}
	return o
}

// idleRxe0 is what netlink shows on an idle rxe0: the kernel's GSI QP,
// its CQ and PD (rdma resource show: pd 1 cq 1 qp 1).
func idleRxe0() *inspect.Snapshot {
	return &inspect.Snapshot{
		Devices: []inspect.Device{{Index: 1, Name: "rxe0", Ports: 1}},
		QPs:     []inspect.QP{{Object: kernObj("rxe0", "ib_core"), Port: 1, LQPN: 1, Type: 1, State: 3}},
		CQs:     []inspect.CQ{{Object: kernObj("rxe0", "ib_core"), CQN: 0, CQE: 1023, Users: 2}},
		PDs:     []inspect.PD{{Object: kernObj("rxe0", "ib_core"), PDN: 0, Users: 1}},
	}
}

// addProcess adds the objects one ibv_rc_pingpong makes: a context, a
// PD, a CQ, an MR and an RC QP.
func addProcess(s *inspect.Snapshot, dev string, pid uint32, comm string, n uint32) {
	addObjects(s, userObj(dev, pid, comm), n)
}

// addObjects adds a context, PD, CQ, MR and QP of the owner of o.
func addObjects(s *inspect.Snapshot, o inspect.Object, n uint32) {
	s.Contexts = append(s.Contexts, inspect.Context{Object: o, CtxN: n})
	s.PDs = append(s.PDs, inspect.PD{Object: o, PDN: n, Users: 2, CtxN: n})
	s.CQs = append(s.CQs, inspect.CQ{Object: o, CQN: n, CQE: 511, Users: 2, CtxN: n})
	s.MRs = append(s.MRs, inspect.MR{Object: o, MRN: n - 1, Len: 4096, PDN: n})
	s.QPs = append(s.QPs, inspect.QP{Object: o, Port: 1, LQPN: 16 + n, Type: 2, State: 3, PDN: n})
}

// liveRxe0 is the rxe0 fixture as the live lab shows it to root: the
// recorded /dev/infiniband, libibverbs listing and opening rxe0 with the
// recorded limits, an idle netlink snapshot, and a successful probe.
func liveRxe0(t *testing.T) *Facts {
	t.Helper()
	f := treeFacts(t, "rxe0")
	f.Live = true
	f.Host.DevNodes = rxe0DevNodes()
	attr, vectors := recordedAttr(t)
	f.Verbs = &VerbsFacts{
		Devices: []verbs.DeviceInfo{{Name: "rxe0", GUID: 0xec8b5bfffe8c2a39, NodeType: 1}},
		Open:    map[string]VerbsDevice{"rxe0": {Attr: &attr, NumCompVectors: vectors}},
	}
	f.Netlink = idleRxe0()
	f.Probes = []Probe{okProbe("rxe0")}
	return f
}

// okProbe is a probe whose calls all worked, with the lab's numbers.
func okProbe(dev string) Probe {
	ms := time.Millisecond
	return Probe{Dev: dev, Port: 1, MRSize: DefaultMRSize, LKey: 0x2ba, RKey: 0x2ba, QPN: 17, QPState: "INIT",
		Steps: []ProbeStep{
			{Call: "ibv_open_device", Detail: dev, Took: ms},
			{Call: "ibv_alloc_pd", Detail: "a protection domain", Took: 3 * ms},
			{Call: "ibv_reg_mr", Detail: "64 MiB, LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ: lkey 0x2ba, rkey 0x2ba", Took: 517 * ms},
			{Call: "ibv_create_cq", Detail: "16 entries asked, 31 given", Took: 19 * ms},
			{Call: "ibv_create_qp", Detail: "RC, 16 send and 16 receive WRs: QP 17", Took: 15 * ms},
			{Call: "ibv_modify_qp", Detail: "RESET to INIT (port 1, pkey_index 0, access REMOTE_WRITE|REMOTE_READ|REMOTE_ATOMIC): INIT", Took: 15 * ms},
			{Call: "teardown", Detail: "destroyed the QP, CQ, MR and PD and closed the device", Took: 4 * ms},
		}}
}

// failedProbe stops at call with the errno, as verbs returns it.
func failedProbe(dev, call string, errno syscall.Errno) Probe {
	p := okProbe(dev)
	for i, s := range p.Steps {
		if s.Call == call {
			p.Steps[i].Err = &verbs.Error{Op: call, Err: errno}
			p.Steps[i].Detail = "64 MiB, LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ"
			p.Steps = p.Steps[:i+1]
			break
		}
	}
	p.LKey, p.RKey, p.QPN, p.QPState = 0, 0, 0, ""
	return p
}

// user1000 is a user without privileges.
func user1000() *sysfsmon.Cred { return &sysfsmon.Cred{UID: 1000, GID: 1000, Groups: []int{1000}} }
