//go:build lab

package trace

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// collector reads a tracer's events in the background.
type collector struct {
	t  *Tracer
	mu sync.Mutex
	ev []Event
	// err is the first read error other than ErrClosed.
	err  error
	done chan struct{}
}

// shared is the tracer most tests read (loading takes seconds under
// TCG); TestMain closes it.
var shared struct {
	once sync.Once
	c    *collector
	err  error
}

func TestMain(m *testing.M) {
	qpholder.Main() // the re-run binary holds QPs for BenchmarkCreate10kQPs
	code := m.Run()
	if shared.c != nil {
		shared.c.stop()
		if shared.c.err != nil {
			fmt.Println("trace: the shared tracer's Read failed:", shared.c.err)
			code = 1
		}
	}
	os.Exit(code)
}

// sharedTrace is the tracer of every process with verbs.DeviceCheckEnv.
func sharedTrace(t *testing.T) *collector {
	t.Helper()
	shared.once.Do(func() { shared.c, shared.err = openCollector(t, Options{Env: CachedEnv(verbs.DeviceCheckEnv)}) })
	if shared.err != nil {
		t.Fatalf("Open: %v", shared.err)
	}
	return shared.c
}

// startTrace opens a tracer with opts for this test alone.
func startTrace(t *testing.T, opts Options) *collector {
	t.Helper()
	c, err := openCollector(t, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		c.stop()
		if c.err != nil {
			t.Errorf("Read: %v", c.err)
		}
	})
	return c
}

func openCollector(t *testing.T, opts Options) (*collector, error) {
	begin := time.Now()
	tr, err := Open(opts)
	if err != nil {
		return nil, err
	}
	t.Logf("%d programs attached in %v", len(tr.Hooks()), time.Since(begin).Round(time.Millisecond))
	c := &collector{t: tr, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for {
			e, err := tr.Read()
			if err != nil {
				if err != ErrClosed {
					c.mu.Lock()
					c.err = err
					c.mu.Unlock()
				}
				return
			}
			c.mu.Lock()
			c.ev = append(c.ev, e)
			c.mu.Unlock()
		}
	}()
	return c, nil
}

// stop closes the tracer and waits for the reader to end.
func (c *collector) stop() {
	c.t.Close()
	<-c.done
}

// of returns the events of process pid so far.
func (c *collector) of(pid int) []Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Event
	for _, e := range c.ev {
		if e.PID == pid {
			out = append(out, e)
		}
	}
	return out
}

// waitFor waits until the events of pid include one that matches.
func (c *collector) waitFor(t *testing.T, pid int, what string, match func(*Event) bool) *Event {
	t.Helper()
	var found *Event
	labkit.WaitFor(t, labkit.Step, what, func() bool {
		for _, e := range c.of(pid) {
			if match(&e) {
				found = &e
				return true
			}
		}
		return false
	})
	return found
}

// pingpongAddr is one line of ibv_rc_pingpong's "local address" /
// "remote address" output.
type pingpongAddr struct {
	QPN, PSN uint32
	GID      string
}

var addrLine = regexp.MustCompile(`(local|remote) address:\s+LID 0x[0-9a-f]+, QPN 0x([0-9a-f]+), PSN 0x([0-9a-f]+), GID (\S+)`)

func parseAddrs(t *testing.T, out string) (local, remote pingpongAddr) {
	t.Helper()
	for _, m := range addrLine.FindAllStringSubmatch(out, -1) {
		qpn, _ := strconv.ParseUint(m[2], 16, 32)
		psn, _ := strconv.ParseUint(m[3], 16, 32)
		a := pingpongAddr{QPN: uint32(qpn), PSN: uint32(psn), GID: m[4]}
		if m[1] == "local" {
			local = a
		} else {
			remote = a
		}
	}
	if local.GID == "" || remote.GID == "" {
		t.Fatalf("no local and remote address lines in ibv_rc_pingpong's output:\n%s", out)
	}
	return local, remote
}

// runPingpong runs an ibv_rc_pingpong server and client on the lab's
// device, with extra arguments for both, and returns them after they end.
func runPingpong(t *testing.T, extra ...string) (server, client *labkit.Proc) {
	t.Helper()
	server, client = labkit.PingpongPair(t, append([]string{"-d", labkit.Env(t, "LAB_DEV"), "-n", "5"}, extra...)...)
	client.Exit(t, labkit.Run)
	server.Exit(t, labkit.Run)
	return server, client
}

func modifyTo(state rdma.QPState) func(*Event) bool {
	return func(e *Event) bool {
		return e.Verb == VerbModifyQP && e.Mask&rdma.AttrState != 0 && e.Attr.State == state
	}
}

func verbIs(v Verb) func(*Event) bool { return func(e *Event) bool { return e.Verb == v } }

// jsonOf decodes an event's -j line into a generic map.
func jsonOf(t *testing.T, e *Event) map[string]any {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return m
}

// TestPingpongSetUp traces an ibv_rc_pingpong pair and checks that each
// side's create, INIT, RTR, RTS and destroy carry what rc_pingpong says
// it used (its "local address" and "remote address" lines).
func TestPingpongSetUp(t *testing.T) {
	labkit.Clean(t)
	c := sharedTrace(t)
	gidIndex := labkit.Env(t, "LAB_GID_INDEX")
	server, client := runPingpong(t, "-g", gidIndex)
	for _, p := range []*labkit.Proc{server, client} {
		pid := int(p.PID())
		local, remote := parseAddrs(t, p.Output())
		t.Run(fmt.Sprintf("pid %d", pid), func(t *testing.T) {
			create := c.waitFor(t, pid, "create_qp", verbIs(VerbCreateQP))
			if create.QPN != local.QPN || create.QPType != rdma.QPTypeRC || create.Ret != 0 {
				t.Errorf("create_qp: qpn %d type %v ret %d; rc_pingpong's local QPN is %d, RC, success", create.QPN, create.QPType, create.Ret, local.QPN)
			}
			destroy := c.waitFor(t, pid, "destroy_qp", verbIs(VerbDestroyQP))
			if destroy.QPN != local.QPN || destroy.Ret != 0 {
				t.Errorf("destroy_qp: qpn %d ret %d, want %d and 0", destroy.QPN, destroy.Ret, local.QPN)
			}
			init := c.waitFor(t, pid, "modify to INIT", modifyTo(rdma.QPStateInit))
			rtr := c.waitFor(t, pid, "modify to RTR", modifyTo(rdma.QPStateRTR))
			rts := c.waitFor(t, pid, "modify to RTS", modifyTo(rdma.QPStateRTS))
			for _, e := range []*Event{init, rtr, rts} {
				if e.Ret != 0 || e.QPN != local.QPN || e.Dev != labkit.Env(t, "LAB_DEV") || e.Comm != "ibv_rc_pingpong" {
					t.Errorf("modify to %v: ret %d qpn %d dev %q comm %q", e.Attr.State, e.Ret, e.QPN, e.Dev, e.Comm)
				}
			}
			got := map[string]any{
				"init": jsonOf(t, init)["attrs"], "rtr": jsonOf(t, rtr)["attrs"], "rts": jsonOf(t, rts)["attrs"],
			}
			want := map[string]any{
				"init": map[string]any{"qp_state": "INIT", "qp_access_flags": 0.0, "pkey_index": 0.0, "port_num": 1.0},
				"rtr": map[string]any{
					"qp_state": "RTR", "path_mtu": 1024.0, "dest_qp_num": float64(remote.QPN), "rq_psn": float64(remote.PSN),
					"max_dest_rd_atomic": 1.0, "min_rnr_timer": 12.0,
					"ah_attr": map[string]any{
						"dgid": remote.GID, "sgid_index": float64(mustAtoi(t, gidIndex)), "hop_limit": 1.0, "traffic_class": 0.0,
						"flow_label": 0.0, "sl": 0.0, "dlid": 0.0, "static_rate": 0.0, "port_num": 1.0, "is_global": true,
					},
				},
				"rts": map[string]any{
					"qp_state": "RTS", "timeout": 14.0, "retry_cnt": 7.0, "rnr_retry": 7.0, "sq_psn": float64(local.PSN), "max_rd_atomic": 1.0,
				},
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("attributes (-rc_pingpong's +traced):\n%s", d)
			}
			if rtr.From != rdma.QPStateInit || !rtr.FromKnown || rtr.SGID.String() != local.GID {
				t.Errorf("RTR: from %v (known %v), sgid %v; want INIT and rc_pingpong's local GID %s", rtr.From, rtr.FromKnown, rtr.SGID, local.GID)
			}
		})
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

// TestPingpongWithoutGRH leaves out -g: on RoCE the RTR modify has no
// GRH, the kernel says EINVAL, and rdma.Check says why.
func TestPingpongWithoutGRH(t *testing.T) {
	labkit.Clean(t)
	c := sharedTrace(t)
	server, _ := runPingpong(t)
	pid := int(server.PID())
	rtr := c.waitFor(t, pid, "modify to RTR", modifyTo(rdma.QPStateRTR))
	if rtr.Ret != -int(syscall.EINVAL) || rtr.Errno != syscall.EINVAL {
		t.Fatalf("RTR without GRH: ret %d errno %v, want -22 EINVAL", rtr.Ret, rtr.Errno)
	}
	if rtr.Check == nil {
		t.Fatalf("RTR without GRH failed but has no rdma.Check verdict")
	}
	d := rtr.Check.Decisive()
	if rtr.Check.Errno != syscall.EINVAL || d == nil || !strings.Contains(d.Problem, "no GRH") {
		t.Errorf("rdma.Check: errno %v, decisive %+v; want EINVAL because the GRH is missing", rtr.Check.Errno, d)
	}
	j := jsonOf(t, rtr)
	if j["ret"] != -22.0 || j["errno"] != "EINVAL" || !strings.Contains(fmt.Sprint(j["check"]), "no GRH") {
		t.Errorf("-j of the failed RTR: ret %v errno %v check %v", j["ret"], j["errno"], j["check"])
	}
	if txt := rtr.Text(); !strings.Contains(txt, "= -22 EINVAL") || !strings.Contains(txt, "check:") {
		t.Errorf("text of the failed RTR lacks the errno or the check:\n%s", txt)
	}
	c.waitFor(t, pid, "destroy_qp", verbIs(VerbDestroyQP))
}

// TestJSONKeys checks the exact keys of each verb's -j object.
func TestJSONKeys(t *testing.T) {
	labkit.Clean(t)
	c := sharedTrace(t)
	server, _ := runPingpong(t, "-g", labkit.Env(t, "LAB_GID_INDEX"))
	pid := int(server.PID())
	c.waitFor(t, pid, "dealloc_ucontext", verbIs(VerbFreeContext))
	base := []string{"comm", "dev", "pid", "ret", "tid", "time", "verb"}
	want := map[Verb][]string{
		VerbAllocContext: {"ctxn"}, VerbFreeContext: {"ctxn"},
		VerbAllocPD: {"pdn"}, VerbDeallocPD: {"pdn"},
		VerbRegMR: {"access", "iova", "lkey", "mrlen", "mrn", "rkey"}, VerbDeregMR: {"iova", "lkey", "mrlen", "mrn", "rkey"},
		VerbCreateCQ: {"cqe", "cqn"}, VerbDestroyCQ: {"cqe", "cqn"},
		VerbCreateQP:  {"cap", "qp_type", "qpn"},
		VerbModifyQP:  {"attrs", "from", "mask", "qp_type", "qpn", "sgid"},
		VerbDestroyQP: {"qp_type", "qpn"},
	}
	// Keys some events of a verb have: the kernel's hop limit when it
	// rewrote the caller's.
	optional := map[Verb][]string{VerbModifyQP: {"route_hop_limit"}}
	seen := map[Verb]bool{}
	for _, e := range c.of(pid) {
		j := jsonOf(t, &e)
		for _, k := range optional[e.Verb] {
			delete(j, k)
		}
		keys := slices.Sorted(maps.Keys(j))
		w := slices.Sorted(slices.Values(append(slices.Clone(base), want[e.Verb]...)))
		if d := cmp.Diff(w, keys); d != "" {
			t.Errorf("%s: keys (-want +got):\n%s", e.Verb, d)
		}
		seen[e.Verb] = true
	}
	for v := range want {
		if !seen[v] {
			t.Errorf("no %s event from ibv_rc_pingpong (pid %d); got %v", v, pid, c.of(pid))
		}
	}
}

// TestShellModifies runs the verbs shell as its own process: its
// connect's modifies appear with the values the shell chose, and a modify
// the shell refuses but sends with --force shows the kernel's errno and
// the same verdict as the shell's.
func TestShellModifies(t *testing.T) {
	labkit.Clean(t)
	c := sharedTrace(t)
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; cq; qp; qp; connect qp1 qp2; qp; modify qp3 rtr --force")
	sh.Exit(t, labkit.Run)
	pid := int(sh.PID())
	c.waitFor(t, pid, "dealloc_ucontext", verbIs(VerbFreeContext))
	out := sh.Output()
	var qpns []uint32
	for _, e := range c.of(pid) {
		if e.Verb == VerbCreateQP {
			qpns = append(qpns, e.QPN)
		}
	}
	if len(qpns) != 3 {
		t.Fatalf("want 3 create_qp from the shell, got %v; shell said:\n%s", qpns, out)
	}
	rtr := c.waitFor(t, pid, "qp1's RTR", func(e *Event) bool { return modifyTo(rdma.QPStateRTR)(e) && e.QPN == qpns[0] })
	if rtr.Ret != 0 || rtr.Attr.DestQPN != qpns[1] || !rtr.Attr.AH.IsGlobal || rtr.Attr.AH.GRH.HopLimit != 1 || rtr.Attr.PathMTU != rdma.MTU1024 {
		t.Errorf("qp1's RTR from connect: ret %d dest_qp_num %d is_global %v hop_limit %d path_mtu %v; want 0, qp2's %d, a GRH with hop limit 1, 1024",
			rtr.Ret, rtr.Attr.DestQPN, rtr.Attr.AH.IsGlobal, rtr.Attr.AH.GRH.HopLimit, rtr.Attr.PathMTU, qpns[1])
	}
	forced := c.waitFor(t, pid, "qp3's forced RTR", func(e *Event) bool { return e.Verb == VerbModifyQP && e.QPN == qpns[2] })
	if forced.Ret != -int(syscall.EINVAL) || forced.From != rdma.QPStateReset || forced.Check == nil || forced.Check.Errno != syscall.EINVAL {
		t.Fatalf("forced RESET→RTR: ret %d from %v check %v; want -22 from RESET with an EINVAL verdict", forced.Ret, forced.From, forced.Check)
	}
	if rule := forced.Check.Decisive().Problem; !strings.Contains(out, rule) {
		t.Errorf("the trace's verdict %q is not the shell's:\n%s", rule, out)
	}
}

// TestMissingTarget aims one program at a function this kernel lacks:
// it is left out with a warning naming it, and the others still trace.
func TestMissingTarget(t *testing.T) {
	labkit.Clean(t)
	c := startTrace(t, Options{Targets: map[string]string{"create_qp_user": "ib_create_qp_user_not_in_this_kernel"}})
	w := strings.Join(c.t.Warnings(), "\n")
	if !strings.Contains(w, "create_qp_user on ib_create_qp_user_not_in_this_kernel left out") {
		t.Errorf("warnings do not name the missing target:\n%s", w)
	}
	for _, h := range c.t.Hooks() {
		if h.Program == "create_qp_user" {
			t.Errorf("create_qp_user attached to %s", h.Target)
		}
	}
	server, _ := runPingpong(t, "-g", labkit.Env(t, "LAB_GID_INDEX"))
	pid := int(server.PID())
	c.waitFor(t, pid, "destroy_qp", verbIs(VerbDestroyQP))
	for _, e := range c.of(pid) {
		if e.Verb == VerbCreateQP {
			t.Errorf("a create_qp event without its program: %+v", e)
		}
	}
	c.waitFor(t, pid, "modify to RTS", modifyTo(rdma.QPStateRTS))
}

// TestMRAccess registers MRs in the verbs shell with two sets of access
// flags: each reg_mr event carries the flags the shell asked for (read
// from rxe_reg_user_mr: struct ib_mr keeps none), and its length.
func TestMRAccess(t *testing.T) {
	labkit.Clean(t)
	c := sharedTrace(t)
	sh := labkit.Start(t, "verbscope", "shell", "-c", "open; pd; mr size=8192; mr size=4096 access=local_write,remote_write,remote_read")
	if code := sh.Exit(t, labkit.Run); code != 0 {
		t.Fatalf("the shell failed (%d):\n%s", code, sh.Output())
	}
	pid := int(sh.PID())
	c.waitFor(t, pid, "the second dereg_mr", func(e *Event) bool {
		n := 0
		for _, x := range c.of(pid) {
			if x.Verb == VerbDeregMR {
				n++
			}
		}
		return n == 2
	})
	var got []string
	for _, e := range c.of(pid) {
		if e.Verb == VerbRegMR {
			got = append(got, fmt.Sprintf("mrlen %d access %v (known %v)", e.Length, e.Access, e.HasAccess))
		}
	}
	want := []string{
		fmt.Sprintf("mrlen 8192 access %v (known true)", rdma.AccessLocalWrite),
		fmt.Sprintf("mrlen 4096 access %v (known true)", rdma.AccessLocalWrite|rdma.AccessRemoteWrite|rdma.AccessRemoteRead),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reg_mr events (-the shell's +traced):\n%s", d)
	}
}
