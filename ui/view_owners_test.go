package ui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/sysfsmon"
)

// ownersHost is a host with a systemd service (an ibv_rc_pingpong pair),
// a containerd container in a Kubernetes pod registering MRs near its
// memlock limit (from a thread, as Go programs do), a docker container
// with a QP in ERR, a cri-o container in a second pod, and a QP whose
// process was reaped.
func ownersHost() (*inspect.Snapshot, owners.Lookup) {
	const (
		cidA = "4c1d9e0f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5"
		cidB = "9a8b7c6d5e4f30211203f4e5d6c7b8a99a8b7c6d5e4f30211203f4e5d6c7b8a9"
		cidC = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
		podA = "7d1c0f3e-5a2b-4c6d-9e8f-a0b1c2d3e4f5"
		podB = "e5f4d3c2-b1a0-4f9e-8d7c-6b5a49382716"
	)
	obj := func(pid, tgid uint32, comm string) inspect.Object {
		o := inspect.Object{DevName: "rxe0", PID: pid, TGID: tgid, Comm: comm, Owner: inspect.OwnerLive}
		if pid != 0 {
			o.Attrs.Add(inspect.AttrResPID)
		} else {
			o.Owner = inspect.OwnerExited
		}
		return o
	}
	s := &inspect.Snapshot{Time: t0.Add(time.Minute)}
	qp := func(o inspect.Object, n uint32, st rdma.QPState) {
		s.QPs = append(s.QPs, inspect.QP{Object: o, LQPN: n, State: st, Type: rdma.QPTypeRC, Port: 1})
	}
	basic := func(o inspect.Object, n uint32, mrs int, mrLen uint64) {
		s.CQs = append(s.CQs, inspect.CQ{Object: o, CQN: n})
		s.PDs = append(s.PDs, inspect.PD{Object: o, PDN: n})
		s.Contexts = append(s.Contexts, inspect.Context{Object: o, CtxN: n})
		for i := range mrs {
			s.MRs = append(s.MRs, inspect.MR{Object: o, MRN: n*100 + uint32(i), Len: mrLen})
		}
	}
	server, client := obj(812, 812, "ibv_rc_pingpong"), obj(813, 813, "ibv_rc_pingpong")
	qp(server, 17, rdma.QPStateRTS)
	qp(client, 18, rdma.QPStateRTS)
	basic(server, 1, 1, 4096)
	basic(client, 2, 1, 4096)
	mrloop := obj(905, 900, "mrloop")
	basic(mrloop, 3, 15, 4096)
	bw := obj(1001, 1001, "ib_write_bw")
	qp(bw, 19, rdma.QPStateErr)
	basic(bw, 4, 2, 1<<20)
	nccl := obj(1100, 1100, "all_reduce_perf")
	for i := range uint32(4) {
		qp(nccl, 20+i, rdma.QPStateRTS)
	}
	basic(nccl, 5, 4, 64<<20)
	qp(obj(0, 0, ""), 30, rdma.QPStateInit)

	pod := func(id string) string {
		return "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + strings.ReplaceAll(id, "-", "_") + ".slice"
	}
	lim := func(v uint64) sysfsmon.Limit { return sysfsmon.Limit{Value: v} }
	procs := map[int]sysfsmon.ProcessOwner{
		812:  {Comm: "ibv_rc_pingpong", Cmdline: "ibv_rc_pingpong -d rxe0 -g 1", User: "alice", UID: 1000, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/x.service"), MemlockSoft: lim(8 << 20), VmPin: 4096},
		813:  {Comm: "ibv_rc_pingpong", Cmdline: "ibv_rc_pingpong -d rxe0 -g 1 10.0.2.15", User: "alice", UID: 1000, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/x.service"), MemlockSoft: lim(8 << 20), VmPin: 4096},
		900:  {Comm: "mrloop", Cmdline: "verbscope shell -f /mr-loop.vs", User: "bob", UID: 1001, Cgroup: sysfsmon.ParseCgroupPath(pod(podA) + "/cri-containerd-" + cidA + ".scope"), MemlockSoft: lim(64 << 10), VmPin: 15 << 12},
		1001: {Comm: "ib_write_bw", Cmdline: "ib_write_bw -d rxe0", User: "root", IPCLock: true, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/docker-" + cidB + ".scope"), MemlockSoft: lim(8 << 20), VmPin: 2<<20 + 8192},
		1100: {Comm: "all_reduce_perf", Cmdline: "all_reduce_perf -b 8 -e 128M", User: "ml", UID: 1003, Cgroup: sysfsmon.ParseCgroupPath(pod(podB) + "/crio-" + cidC + ".scope"), MemlockSoft: sysfsmon.Limit{Unlimited: true}, VmPin: 256 << 20},
	}
	return s, func(tgid int) (sysfsmon.ProcessOwner, error) {
		p, ok := procs[tgid]
		if !ok {
			return p, fmt.Errorf("process %d: %w", tgid, sysfsmon.ErrNoProcess)
		}
		p.TGID = tgid
		return p, nil
	}
}

// ownersModel is the fixture dashboard showing ownersHost in the owners
// view.
func ownersModel(t *testing.T, w, h int) *model {
	t.Helper()
	m := fixtureModel(t, "rxe0", "dark", w, h, false)
	s, look := ownersHost()
	m.c.src.Owners = look
	m.c.src.Host.MemTotal = 16 << 30
	// mrloop's MRs grew over the window.
	u := inspect.Update{Growing: []inspect.Growth{{TGID: 900, Comm: "mrloop", Kind: rdma.KindMR, From: 3, To: 15, Since: t0, PerMinute: 1.2}}}
	d := m.resBuilder.build(inspect.Frame{Snapshot: s, Update: u}, front.State{})
	d.owners = owners.Read(s, look)
	owners.AddGrowth(d.owners, u.Growing)
	m.Update(resMsg{d})
	m.Update(m.jumpMsg("owners"))
	return m
}

func TestOwnersGolden(t *testing.T) {
	for _, sz := range sizes {
		for _, by := range owners.Bys() {
			t.Run(fmt.Sprintf("%s/%dx%d", by, sz[0], sz[1]), func(t *testing.T) {
				m := ownersModel(t, sz[0], sz[1])
				for m.find("owners").view.(*ownersView).by != by {
					send(m, "b")
				}
				out := screen(m)
				checkFits(t, out, sz[0], sz[1])
				if !strings.Contains(out, "owners by "+string(by)) {
					t.Errorf("no heading \"owners by %s\":\n%s", by, out)
				}
				// MRs: 2×4K + 15×4K + 2×1M + 4×64M; VmPin: 8K + 60K + 2M+8K + 256M.
				if h := "host: MRs 258.1M, VmPin 258.1M of 16.0G RAM"; sz[0] >= 160 && !strings.Contains(out, h) {
					t.Errorf("no %q in the heading:\n%s", h, out)
				}
				requireBody(t, out)
			})
		}
	}
}

// Enter on a group filters every object view by the threads that
// created its objects and shows the first kind it holds.
func TestOwnersEnterOpensObjects(t *testing.T) {
	m := ownersModel(t, 160, 48)
	send(m, "b") // by unit
	m.find("owners").table.SetFilter([]string{"unit=cri-containerd"})
	_, cmd := m.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter on the pod's container gave no command")
	}
	m.Update(cmd())
	if m.cur.name != "cq" {
		t.Fatalf("enter showed %q, want cq (the container holds no QP)", m.cur.name)
	}
	for _, k := range rdma.ResourceKinds() {
		if f := m.find(string(k)).table.filter; !slices.Equal(f, []string{"pid=905"}) {
			t.Errorf("%s view filter %q, want pid=905 (the thread that made them)", k, f)
		}
	}
	if rows := len(m.cur.table.view); rows != 1 {
		t.Errorf("the cq view shows %d rows, want the container's 1", rows)
	}
	send(m, "esc")
	if len(m.cur.table.filter) != 0 {
		t.Errorf("esc left the filter %q", m.cur.table.filter)
	}
}

// i opens a group's processes: command line, cgroup, memlock.
func TestOwnersInfo(t *testing.T) {
	m := ownersModel(t, 160, 48)
	m.find("owners").table.SetFilter([]string{"comm=mrloop"})
	_, cmd := m.Update(keyMsg("i"))
	if cmd == nil {
		t.Fatal("i gave no command")
	}
	m.Update(cmd())
	out := strings.Join(strings.Fields(screen(m)), " ")
	for _, want := range []string{"process 900 mrloop", "cmdline verbscope shell -f /mr-loop.vs", "cgroup /kubepods.slice/", "memlock 64.0K (94% used)",
		"pinned 60.0K in MRs; the kernel counts 60.0K (VmPin)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the detail lacks %q:\n%s", want, out)
		}
	}
}

func TestOwnersFilterAndMarks(t *testing.T) {
	m := ownersModel(t, 160, 48)
	for _, a := range []string{"1 process near memlock: mrloop[900] 94% of 64.0K", "1 growing object kind: mrloop[900] mr +1.2/min"} {
		if !slices.Contains(m.alerts(), a) {
			t.Errorf("alerts %q lack %q", m.alerts(), a)
		}
	}
	tb := m.find("owners").table
	tb.SetFilter([]string{"flags=memlock"})
	if len(tb.view) != 1 || tb.rows[tb.view[0]].Mark != markError || !strings.HasPrefix(tb.rows[tb.view[0]].Cells[0], "containerd:") {
		t.Errorf("flags=memlock: %d rows, want the containerd one marked as an error", len(tb.view))
	}
	tb.SetFilter([]string{"user=ml", "qp=4"})
	if len(tb.view) != 1 || tb.rows[tb.view[0]].Cells[0] != "cri-o:0123456789ab" {
		t.Errorf("user=ml qp=4: %d rows", len(tb.view))
	}
}
