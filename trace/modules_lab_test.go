//go:build lab

package trace

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// rdmaModules are the guest's modules (lab/init.sh loads /modules/order)
// that the RDMA stack is made of, in their load order.
func rdmaModules(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("/modules/order")
	if err != nil {
		t.Fatalf("the lab's module list: %v", err)
	}
	stack := []string{"ib_core", "ib_uverbs", "ib_cm", "iw_cm", "rdma_cm", "rdma_ucm", "ib_umad", "rdma_rxe"}
	var out []string
	for _, m := range strings.Fields(string(b)) {
		if slices.Contains(stack, m) {
			out = append(out, m)
		}
	}
	if !slices.Contains(out, "ib_core") || !slices.Contains(out, "rdma_rxe") {
		t.Fatalf("/modules/order has no ib_core or rdma_rxe: %q", b)
	}
	return out
}

func run(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// loadRDMA loads mods (in order) and adds rxe0 back as lab/init.sh did,
// waiting for its RoCE v2 GID at the lab's index.
func loadRDMA(t *testing.T, mods []string) {
	t.Helper()
	for _, m := range mods {
		if _, err := os.Stat("/sys/module/" + m); err == nil {
			continue
		}
		run(t, "insmod", "/modules/"+m+".ko")
	}
	dev := labkit.Env(t, "LAB_DEV")
	if _, err := os.Stat("/sys/class/infiniband/" + dev); err != nil {
		run(t, "rdma", "link", "add", dev, "type", "rxe", "netdev", labkit.Env(t, "LAB_NETDEV"))
	}
	gid := "/sys/class/infiniband/" + dev + "/ports/1/gids/" + labkit.Env(t, "LAB_GID_INDEX")
	labkit.WaitFor(t, labkit.Step, "rxe0's RoCE v2 GID", func() bool {
		b, _ := os.ReadFile(gid)
		return strings.Contains(string(b), "ffff")
	})
}

// TestModuleLoadedLater unloads the whole RDMA stack, opens a tracer (no
// program can attach: none of its functions exist), loads the stack
// again and checks that the programs attach with a notice and trace an
// ibv_rc_pingpong pair's set-up. Attached programs hold their modules: a
// tracer of an earlier test is waited for, until the kernel let it go.
func TestModuleLoadedLater(t *testing.T) {
	labkit.Clean(t)
	mods := rdmaModules(t)
	t.Cleanup(func() { loadRDMA(t, mods) })
	run(t, "rdma", "link", "delete", labkit.Env(t, "LAB_DEV"))
	for _, m := range slices.Backward(mods) {
		// A tracer that closed a moment ago (an earlier test's, under
		// -count 2) still holds the modules until the kernel has freed
		// its programs' trampolines, after an RCU grace period: rmmod
		// then says EAGAIN ("Resource temporarily unavailable").
		labkit.WaitFor(t, labkit.Step, "rmmod "+m+" to succeed (a tracer still holding it?)", func() bool {
			return exec.Command("rmmod", m).Run() == nil
		})
	}
	if _, err := os.Stat("/sys/module/ib_core"); err == nil {
		t.Fatal("ib_core is still loaded after rmmod")
	}
	var mu sync.Mutex
	var notices []string
	c := startTrace(t, Options{Groups: GroupQP, Notify: func(s string) {
		mu.Lock()
		notices = append(notices, s)
		mu.Unlock()
	}})
	if n := len(c.t.Hooks()); n != 0 {
		t.Fatalf("%d programs attached without ib_core: %v", n, c.t.Hooks())
	}
	if w := c.t.Warnings(); len(w) != 7 {
		t.Errorf("%d warnings, want one per QP program (7):\n%s", len(w), strings.Join(w, "\n"))
	}
	begin := time.Now()
	loadRDMA(t, mods)
	labkit.WaitFor(t, labkit.Attach, "the QP programs attached", func() bool { return len(c.t.Hooks()) == 7 })
	t.Logf("7 programs attached %v after the modules began to load", time.Since(begin).Round(time.Millisecond))
	// The notice follows the attach: wait for it, do not race it.
	var got string
	labkit.WaitFor(t, labkit.Step, "the notice that ib_core loaded and 7 programs attached", func() bool {
		mu.Lock()
		got = strings.Join(notices, "\n")
		mu.Unlock()
		return strings.Contains(got, "ib_core") && strings.Contains(got, "loaded: 7 programs attached")
	})
	if w := c.t.Warnings(); len(w) != 0 {
		t.Errorf("warnings remain after the programs attached:\n%s", strings.Join(w, "\n"))
	}
	server, _ := runPingpong(t, "-g", labkit.Env(t, "LAB_GID_INDEX"))
	pid := int(server.PID())
	rts := c.waitFor(t, pid, "modify to RTS", modifyTo(rdma.QPStateRTS))
	if rts.Ret != 0 || rts.Attr.Timeout != 14 || rts.Attr.RetryCnt != 7 {
		t.Errorf("RTS: ret %d timeout %d retry_cnt %d, want 0, 14, 7", rts.Ret, rts.Attr.Timeout, rts.Attr.RetryCnt)
	}
	c.waitFor(t, pid, "create_qp", verbIs(VerbCreateQP))
	c.waitFor(t, pid, "destroy_qp", verbIs(VerbDestroyQP))
}

// TestOpenQPGroup opens the QP programs alone, as the dashboard and the
// exporter do: 7 programs, and only QP events.
func TestOpenQPGroup(t *testing.T) {
	labkit.Clean(t)
	begin := time.Now()
	c := startTrace(t, Options{Groups: GroupQP})
	t.Logf("GroupQP: %d programs attached in %v", len(c.t.Hooks()), time.Since(begin).Round(time.Millisecond))
	if n := len(c.t.Hooks()); n != 7 {
		t.Errorf("%d programs attached, want the 7 QP programs: %v", n, c.t.Hooks())
	}
	for _, h := range c.t.Hooks() {
		if programGroups[h.Program] != GroupQP {
			t.Errorf("%s on %s attached, which is not a QP program", h.Program, h.Target)
		}
	}
	server, _ := runPingpong(t, "-g", labkit.Env(t, "LAB_GID_INDEX"))
	pid := int(server.PID())
	c.waitFor(t, pid, "destroy_qp", verbIs(VerbDestroyQP))
	c.waitFor(t, pid, "modify to RTS", modifyTo(rdma.QPStateRTS))
	for _, e := range c.of(pid) {
		if e.Verb != VerbCreateQP && e.Verb != VerbModifyQP && e.Verb != VerbDestroyQP {
			t.Errorf("a %s event without its program", e.Verb)
		}
	}
}
