package owners

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

const (
	cid = "3f4e5d6c7b8a99887766554433221100ffeeddccbbaa00112233445566778899"
	pod = "0f6a9c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b"
)

// user makes a user object of thread pid in process tgid.
func user(pid, tgid uint32, comm string, owner inspect.Owner) inspect.Object {
	o := inspect.Object{DevName: "rxe0", PID: pid, TGID: tgid, Comm: comm, Owner: owner}
	if pid != 0 {
		o.Attrs.Add(inspect.AttrResPID)
	}
	return o
}

// fixture is a host with a systemd service (two processes), a docker
// container, a pod's containerd container, a process that exited and a
// kernel QP.
func fixture() (*inspect.Snapshot, Lookup) {
	kern := inspect.Object{DevName: "rxe0", KernName: "ib_core", Comm: "ib_core"}
	kern.Attrs.Add(inspect.AttrResKernName)
	s := &inspect.Snapshot{
		QPs: []inspect.QP{
			{Object: kern, LQPN: 1, State: rdma.QPStateRTS},
			{Object: user(101, 100, "pingpong", inspect.OwnerLive), LQPN: 17, State: rdma.QPStateRTS},
			{Object: user(201, 200, "pingpong", inspect.OwnerLive), LQPN: 18, State: rdma.QPStateRTS},
			{Object: user(300, 300, "ib_write_bw", inspect.OwnerLive), LQPN: 19, State: rdma.QPStateErr},
			{Object: user(0, 0, "", inspect.OwnerExited), LQPN: 20, State: rdma.QPStateInit},
		},
		MRs: []inspect.MR{
			{Object: user(100, 100, "pingpong", inspect.OwnerLive), MRN: 1, Len: 4096},
			{Object: user(400, 400, "mrloop", inspect.OwnerLive), MRN: 2, Len: 1 << 20},
			{Object: user(400, 400, "mrloop", inspect.OwnerLive), MRN: 3, Len: 1 << 20},
		},
		PDs: []inspect.PD{{Object: user(400, 400, "mrloop", inspect.OwnerLive), PDN: 1}},
	}
	podSlice := "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + strings.ReplaceAll(pod, "-", "_") + ".slice"
	procs := map[int]sysfsmon.ProcessOwner{
		100: {Comm: "pingpong", User: "alice", UID: 1000, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/x.service"), MemlockSoft: sysfsmon.Limit{Value: 65536}, VmPin: 4096},
		200: {Comm: "pingpong", User: "alice", UID: 1000, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/x.service"), MemlockSoft: sysfsmon.Limit{Unlimited: true}},
		300: {Comm: "ib_write_bw", User: "root", UID: 0, Cgroup: sysfsmon.ParseCgroupPath("/system.slice/docker-" + cid + ".scope"), MemlockSoft: sysfsmon.Limit{Value: 8 << 20}, IPCLock: true},
		400: {Comm: "mrloop", User: "bob", UID: 1001, Cgroup: sysfsmon.ParseCgroupPath(podSlice + "/cri-containerd-" + cid + ".scope"), MemlockSoft: sysfsmon.Limit{Value: 2 << 20}, VmPin: 2<<20 + 4096},
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

func texts(gs []Group) []string {
	var out []string
	for i := range gs {
		out = append(out, gs[i].Row().Text())
	}
	return out
}

func TestGroups(t *testing.T) {
	s, lookup := fixture()
	ps := Read(s, lookup)
	for _, c := range []struct {
		by   By
		want []string
	}{
		{ByProcess, []string{
			"pid 400 comm mrloop user bob(1001) unit cri-containerd-" + cid + ".scope container containerd:3f4e5d6c7b8a pod " + pod +
				" qp 0 cq 0 mr 2 pd 1 ctx 0 srq 0 cm_id 0 qp-states - pinned 2097152 vmpin 2101248 memlock 2097152 memlock-used 100% growth - flags memlock",
			"pid 100 comm pingpong user alice(1000) unit x.service container - pod - qp 1 cq 0 mr 1 pd 0 ctx 0 srq 0 cm_id 0 qp-states RTS:1 pinned 4096 vmpin 4096 memlock 65536 memlock-used 6% growth - flags -",
			// objects of a reaped task: no pid, no cgroup
			"pid 0 comm - user - unit - container - pod - qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states INIT:1 pinned 0 vmpin 0 memlock - memlock-used 0% growth - flags gone",
			"pid 200 comm pingpong user alice(1000) unit x.service container - pod - qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states RTS:1 pinned 0 vmpin 0 memlock unlimited memlock-used 0% growth - flags -",
			"pid 300 comm ib_write_bw user root(0) unit docker-" + cid + ".scope container docker:3f4e5d6c7b8a pod - qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states ERR:1 pinned 0 vmpin 0 memlock 8388608 memlock-used 0% growth - flags -",
		}},
		{ByUnit, []string{
			"unit cri-containerd-" + cid + ".scope pids 400 comm mrloop user bob(1001) qp 0 cq 0 mr 2 pd 1 ctx 0 srq 0 cm_id 0 qp-states - pinned 2097152 vmpin 2101248 memlock 2097152 memlock-used 100% growth - flags memlock",
			// the group's limit is its worst member's: 100's, not 200's unlimited
			"unit x.service pids 100,200 comm pingpong user alice(1000) qp 2 cq 0 mr 1 pd 0 ctx 0 srq 0 cm_id 0 qp-states RTS:2 pinned 4096 vmpin 4096 memlock 65536 memlock-used 6% growth - flags -",
			"unit - pids 0 comm - user - qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states INIT:1 pinned 0 vmpin 0 memlock - memlock-used 0% growth - flags gone",
			"unit docker-" + cid + ".scope pids 300 comm ib_write_bw user root(0) qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states ERR:1 pinned 0 vmpin 0 memlock 8388608 memlock-used 0% growth - flags -",
		}},
		{ByContainer, []string{
			"container - pids 0,100,200 comm pingpong user alice(1000) qp 3 cq 0 mr 1 pd 0 ctx 0 srq 0 cm_id 0 qp-states INIT:1,RTS:2 pinned 4096 vmpin 4096 memlock 65536 memlock-used 6% growth - flags gone",
			"container containerd:3f4e5d6c7b8a pids 400 comm mrloop user bob(1001) qp 0 cq 0 mr 2 pd 1 ctx 0 srq 0 cm_id 0 qp-states - pinned 2097152 vmpin 2101248 memlock 2097152 memlock-used 100% growth - flags memlock",
			"container docker:3f4e5d6c7b8a pids 300 comm ib_write_bw user root(0) qp 1 cq 0 mr 0 pd 0 ctx 0 srq 0 cm_id 0 qp-states ERR:1 pinned 0 vmpin 0 memlock 8388608 memlock-used 0% growth - flags -",
		}},
		{ByPod, []string{
			"pod - pids 0,100,200,300 comm pingpong,ib_write_bw user alice(1000),root(0) qp 4 cq 0 mr 1 pd 0 ctx 0 srq 0 cm_id 0 qp-states INIT:1,RTS:2,ERR:1 pinned 4096 vmpin 4096 memlock 65536 memlock-used 6% growth - flags gone",
			"pod " + pod + " pids 400 comm mrloop user bob(1001) qp 0 cq 0 mr 2 pd 1 ctx 0 srq 0 cm_id 0 qp-states - pinned 2097152 vmpin 2101248 memlock 2097152 memlock-used 100% growth - flags memlock",
		}},
	} {
		if diff := cmp.Diff(c.want, texts(Groups(ps, c.by))); diff != "" {
			t.Errorf("by %s (-want +got):\n%s", c.by, diff)
		}
	}
}

// TestKeyOfAncestry: a user names its own cgroups, and may name one
// after the system's container or unit; the groups keep them apart,
// under the user's manager, and a name in a unit's delegated subtree
// counts for nothing. Each row shows its members' uids.
func TestKeyOfAncestry(t *testing.T) {
	proc := func(tgid, uid int, user, path string) Process {
		return Process{ProcessOwner: sysfsmon.ProcessOwner{TGID: tgid, UID: uid, User: user, Cgroup: sysfsmon.ParseCgroupPath(path)}}
	}
	ps := []Process{
		proc(300, 0, "root", "/system.slice/docker-"+cid+".scope"),
		proc(500, 1002, "mallory", "/user.slice/user-1002.slice/user@1002.service/app.slice/docker-"+cid+".scope"),
		proc(600, 1002, "mallory", "/system.slice/ci.service/docker-"+cid+".scope"),
		proc(700, 1002, "1002", "/user.slice/user-1002.slice/user@1002.service/app.slice/sshd.service"),
	}
	for _, c := range []struct {
		by   By
		want []string
	}{
		{ByContainer, []string{"-", "docker:3f4e5d6c7b8a", "user@1002.service/docker:3f4e5d6c7b8a"}},
		{ByUnit, []string{"ci.service", "docker-" + cid + ".scope", "user@1002.service/docker-" + cid + ".scope", "user@1002.service/sshd.service"}},
	} {
		var keys []string
		for _, g := range Groups(ps, c.by) {
			keys = append(keys, g.Key)
		}
		if diff := cmp.Diff(c.want, keys); diff != "" {
			t.Errorf("by %s (-want +got):\n%s", c.by, diff)
		}
	}
	var users []string
	for _, g := range Groups(ps, ByContainer) {
		users = append(users, g.Row().Text())
	}
	for i, want := range []string{"user mallory(1002),1002 ", "user root(0) ", "user mallory(1002) "} {
		if !strings.Contains(users[i], want) {
			t.Errorf("row %d: %s\nwant it to show %q", i, users[i], want)
		}
	}
}

func TestMemlockAlert(t *testing.T) {
	for _, c := range []struct {
		name string
		p    Process
		want bool
	}{
		{"over 80%", Process{ProcessOwner: sysfsmon.ProcessOwner{MemlockSoft: sysfsmon.Limit{Value: 1000}}, Pinned: 801}, true},
		{"at 80%", Process{ProcessOwner: sysfsmon.ProcessOwner{MemlockSoft: sysfsmon.Limit{Value: 1000}}, Pinned: 800}, false},
		{"CAP_IPC_LOCK lifts the limit", Process{ProcessOwner: sysfsmon.ProcessOwner{MemlockSoft: sysfsmon.Limit{Value: 1000}, IPCLock: true}, Pinned: 999}, false},
		{"unlimited", Process{ProcessOwner: sysfsmon.ProcessOwner{MemlockSoft: sysfsmon.Limit{Unlimited: true}}, Pinned: 1 << 40}, false},
		{"exited", Process{ProcessOwner: sysfsmon.ProcessOwner{MemlockSoft: sysfsmon.Limit{Value: 1000}}, Pinned: 999, Gone: true}, false},
	} {
		if got := c.p.MemlockAlert(); got != c.want {
			t.Errorf("%s: MemlockAlert = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestRowJSONAndFilters(t *testing.T) {
	s, lookup := fixture()
	gs := Groups(Read(s, lookup), ByUnit)
	got := string(gs[1].Row().AppendJSON(nil))
	want := `{"unit":"x.service","pids":["100","200"],"comm":"pingpong","user":"alice","qp":2,"cq":0,"mr":1,"pd":0,"ctx":0,"srq":0,"cm_id":0,"qp-states":{"RTS":2},"pinned":4096,"vmpin":4096,"memlock":65536,"memlock-used":0.063,"growth":{},"flags":null}`
	if got != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	for _, c := range []struct {
		words []string
		want  []string // the keys of the groups that match
	}{
		{[]string{"pid", "200"}, []string{"x.service"}},
		{[]string{"flags", "memlock"}, []string{"cri-containerd-" + cid + ".scope"}},
		{[]string{"unit", "docker"}, []string{"docker-" + cid + ".scope"}},
		{[]string{"memlock-used", "50-100"}, []string{"cri-containerd-" + cid + ".scope"}},
		{[]string{"qp", "2-10"}, []string{"x.service"}},
	} {
		fs, err := view.ParseFilterWords(Kind, c.words)
		if err != nil {
			t.Fatalf("%v: %v", c.words, err)
		}
		var keys []string
		for i := range gs {
			if fs.Match(gs[i].Row()) {
				keys = append(keys, gs[i].Key)
			}
		}
		if diff := cmp.Diff(c.want, keys); diff != "" {
			t.Errorf("filter %v (-want +got):\n%s", c.words, diff)
		}
	}
}

// A Tracker's growth marks the process's groups.
func TestGrowthFlags(t *testing.T) {
	s, lookup := fixture()
	ps := Read(s, lookup)
	AddGrowth(ps, []inspect.Growth{{TGID: 400, Kind: rdma.KindMR, From: 2, To: 14, PerMinute: 6}, {TGID: 0, Kind: rdma.KindQP, PerMinute: 1}})
	gs := Groups(ps, ByPod)
	got := gs[1].Row().Text()
	if !strings.HasSuffix(got, "growth mr:+6.0/min flags memlock,growing") {
		t.Errorf("pod row %q lacks the growth", got)
	}
	// The reaped task's pid 0 is no process to blame.
	if f := gs[0].Flags(); !cmp.Equal(f, []string{FlagGone}) {
		t.Errorf("host group flags %q", f)
	}
	fs, err := view.ParseFilterWords(Kind, []string{"flags", "growing"})
	if err != nil || !fs.Match(gs[1].Row()) || fs.Match(gs[0].Row()) {
		t.Errorf("flags=growing: %v", err)
	}
}

func TestParseBy(t *testing.T) {
	for _, b := range Bys() {
		if got, err := ParseBy(string(b)); err != nil || got != b {
			t.Errorf("ParseBy(%q) = %q, %v", b, got, err)
		}
	}
	if _, err := ParseBy("node"); err == nil || err.Error() != `owners: group by "node": want process, unit, container, pod or host` {
		t.Errorf("ParseBy(node): %v", err)
	}
	if got, err := ParseBy("host"); got != ByHost || err != nil {
		t.Errorf("ParseBy(host) = %q, %v", got, err)
	}
	if got := ByPod.Next(); got != ByProcess {
		t.Errorf("ByPod.Next() = %q", got)
	}
}

func TestTop(t *testing.T) {
	s, lookup := fixture()
	gs := Groups(Read(s, lookup), ByPlace)
	var keys []string
	for _, g := range gs {
		keys = append(keys, g.Key)
	}
	if want := []string{"containerd:3f4e5d6c7b8a", "x.service", "-", "docker:3f4e5d6c7b8a"}; !cmp.Equal(keys, want) {
		t.Fatalf("by place: %q, want %q", keys, want)
	}
	top := Top(gs, 2)
	if len(top) != 3 || top[0].Key != gs[0].Key || top[1].Key != "x.service" || top[2].Key != other {
		t.Fatalf("Top(2) = %d groups", len(top))
	}
	o := top[2]
	if o.Objects[rdma.KindQP] != 2 || o.QPStates[rdma.QPStateErr] != 1 || len(o.Processes) != 2 {
		t.Errorf("other: %+v", o)
	}
	// docker's ib_write_bw has CAP_IPC_LOCK and the other member exited:
	// no limit applies to the fold.
	if lim, ratio := o.Memlock(); ratio != 0 || lim.Value != 8<<20 {
		t.Errorf("other's memlock %v %v", lim, ratio)
	}
	if got := Top(gs, 10); len(got) != len(gs) {
		t.Errorf("Top(10) of %d groups gave %d", len(gs), len(got))
	}
	if got := Top(gs, 0); len(got) != 1 || got[0].total() != 8 {
		t.Errorf("Top(0) = %+v, want everything in other", got)
	}
}

// The host line sums every live process's MR bytes and VmPin; a gone
// process's MRs still count (the kernel keeps them), its VmPin cannot
// be read.
func TestHost(t *testing.T) {
	s, lookup := fixture()
	h := HostOf(Read(s, lookup), 4<<30)
	if want := (Host{Processes: 4, Pinned: 4096 + 2<<20, VmPin: 4096 + 2<<20 + 4096, MemTotal: 4 << 30}); h != want {
		t.Errorf("HostOf = %+v, want %+v", h, want)
	}
	if got, want := h.Row().Text(), "host all processes 4 pinned 2101248 vmpin 2105344 memtotal 4294967296 mem-pinned 0.0%"; got != want {
		t.Errorf("text\n got %s\nwant %s", got, want)
	}
	h.MemTotal = 100 << 20
	if got, want := string(h.Row().AppendJSON(nil)), `{"host":"all","processes":4,"pinned":2101248,"vmpin":2105344,"memtotal":104857600,"mem-pinned":0.0201}`; got != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	if got := HostOf(nil, 0).memShare(); got != 0 {
		t.Errorf("MemShare without MemTotal = %v", got)
	}
	// Grouped by host, everything is one group whose sums agree.
	gs := Groups(Read(s, lookup), ByHost)
	if len(gs) != 1 || gs[0].Key != hostKey || gs[0].Pinned != h.Pinned || gs[0].VmPin != h.VmPin {
		t.Errorf("Groups by host = %+v", gs)
	}
}
