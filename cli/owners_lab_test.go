//go:build lab

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
	"github.com/verbscope/verbscope/internal/syncio"
	"github.com/verbscope/verbscope/sysfsmon"
)

// The pod and container of the test's containerd-like cgroup.
const (
	ownersPod = "5e0c1a2b-3d4e-4f50-8a6b-7c8d9e0f1a2b"
	ownersCID = "c0ffee00d00dfeed1234567890abcdef1234567890abcdef1234567890abcdef"
)

// TestResOwners: an ibv_rc_pingpong pair in a cgroup named like a systemd
// service and a verbs shell registering a 4 KiB MR a second (then 64 KiB
// four times a second, held at 7/8 of its limit) in one named like a
// containerd container of a Kubernetes pod, under a 1 MiB
// RLIMIT_MEMLOCK and without CAP_IPC_LOCK (so the limit binds it).
// res owners -j groups them by unit, container and pod, and so does the
// dashboard's owners view, whose header names the growing MRs; the exporter
// flags the shell's MRs growing and agrees with rdma resource show on
// the pair's objects; doctor --watch names the shell growing with its
// slope; the memlock flag is raised before the shell's registration
// fails with ENOMEM. The kernel's VmPin of the pair is their MR bytes in
// pages, and res owners by host sums them (hostPinned). Then a killed QP holder whose files a
// child keeps: its QPs are flagged gone until the kernel releases them.
func TestResOwners(t *testing.T) {
	labkit.Clean(t)
	start := time.Now()
	unitDir, podDir := ownerCgroups(t)

	addr := "127.0.0.1:19884"
	labkit.Start(t, "verbscope", "export", "--no-trace", "--web.listen-address="+addr, "--interval=1s",
		"--collector.owners=5", "--window=30s")
	// The dashboard starts now: its first screen takes many seconds
	// under TCG, and it must see the shell's MRs grow from the start.
	os.Setenv("XDG_STATE_HOME", t.TempDir())
	dash := newTmux(t)
	dash.line("verbscope dash --no-trace --no-shell --interval 1s --window 30s --view owners")

	srv, cli := labkit.PingpongPair(t, "-g", labkit.Env(t, "LAB_GID_INDEX"), "-e", "-n", "100000000")
	labkit.Throttle(t, 100*time.Millisecond, time.Second, srv, cli)
	for _, p := range []*labkit.Proc{srv, cli} {
		joinCgroup(t, unitDir, int(p.PID()))
	}
	shell, stderr, loop := startMRLoop(t, podDir)
	shellPID := shell.Process.Pid
	// doctor --watch observes while the shell registers its MRs.
	doctor := labkit.Start(t, "verbscope", "doctor", "--watch", "20s", "--only", "growth")

	// Grouped by unit, container and pod.
	unit := "x.service"
	scope := "cri-containerd-" + ownersCID + ".scope"
	labkit.WaitFor(t, labkit.Step, "res owners by unit to show the pair's 2 QPs and the shell's MRs", func() bool {
		rows := ownerRows(t, "by", "unit")
		return num(rows[unit], "qp") == 2 && num(rows[scope], "mr") >= 2
	})
	rows := ownerRows(t, "by", "unit")
	if got, want := pidsOf(rows[unit]), []string{strconv.Itoa(int(srv.PID())), strconv.Itoa(int(cli.PID()))}; !sameSet(got, want) {
		t.Errorf("x.service holds pids %v, want the pair %v", got, want)
	}
	if got := pidsOf(rows[scope]); len(got) != 1 || got[0] != strconv.Itoa(shellPID) {
		t.Errorf("the container's scope holds pids %v, want the shell's %d", got, shellPID)
	}
	byContainer := ownerRows(t, "by", "container")
	if r := byContainer["containerd:"+ownersCID[:12]]; num(r, "mr") < 2 || num(r, "qp") != 0 {
		t.Errorf("by container: containerd:%s = %v", ownersCID[:12], r)
	}
	if r := ownerRows(t, "by", "pod")[ownersPod]; num(r, "mr") < 2 {
		t.Errorf("by pod: %s = %v", ownersPod, r)
	}
	byProcess := ownerRows(t)
	if r := byProcess[strconv.Itoa(shellPID)]; r["pod"] != ownersPod || r["memlock"] != float64(1<<20) {
		t.Errorf("the shell's row: %v", r)
	}

	// The dashboard's owners view: by process, then by unit; its header
	// names the growing kind.
	dash.waitLong("owners by process")
	dash.waitFor("containerd:" + ownersCID[:12])
	dash.waitFor("x.service")
	dash.key("b")
	dash.waitFor("owners by unit")
	dash.waitRE(`owners by unit · host: MRs \S+, VmPin \S+ of \S+ RAM`)
	dash.waitFor("cri-containerd-")
	dash.waitRE(`growing object kind: verbscope\[` + strconv.Itoa(shellPID) + `\] mr \+`)

	// The exporter agrees with rdma on the pair's objects.
	pair := map[string]bool{strconv.Itoa(int(srv.PID())): true, strconv.Itoa(int(cli.PID())): true}
	for _, kind := range []string{"qp", "cq", "mr", "pd", "ctx"} {
		n := 0
		for _, o := range parse(t, labkit.RdmaJSON(t, kind)) {
			if p, ok := o.Values["pid"]; ok && pair[fmt.Sprint(p)] {
				n++
			}
		}
		name := fmt.Sprintf(`verbscope_owner_objects{kind="%s",owner="%s"}`, kind, unit)
		body := waitMetricsFor(t, labkit.Step, addr, name, func(b string) bool { return metricRE(name).MatchString(b) })
		if v := metricFloat(t, body, regexp.QuoteMeta(name)); v != float64(n) || n == 0 {
			t.Errorf("%s = %v, rdma resource show %s counts %d of the pair's", name, v, kind, n)
		}
	}

	// The shell's MRs grow, and its memlock flag comes before its
	// registration fails.
	owner := "containerd:" + ownersCID[:12]
	growing := fmt.Sprintf(`verbscope_owner_objects_growing{kind="mr",owner="%s"}`, owner)
	body := waitMetricsFor(t, labkit.Run, addr, growing+" above 0", func(b string) bool {
		m := metricRE(growing).FindStringSubmatch(b)
		return m != nil && m[1] != "0"
	})
	if v := metricFloat(t, body, regexp.QuoteMeta(growing)); v < 10 || v > 120 {
		t.Errorf("%s = %v MRs a minute; the shell registers about 60", growing, v)
	}
	// doctor names the shell, where it lives and its slope; it warns,
	// which fails nothing.
	if code := doctor.Exit(t, labkit.Run); code != 0 {
		t.Errorf("doctor --watch exited %d:\n%s", code, doctor.Output())
	}
	leak := regexp.MustCompile(`verbscope\[` + strconv.Itoa(shellPID) + `\] in ` + owner + ` created (\d+) mrs in 20s and destroyed none \(\+([\d.]+) a minute\)`)
	if m := leak.FindStringSubmatch(doctor.Output()); m == nil {
		t.Errorf("doctor --watch 20s does not name the shell's MRs growing:\n%s", doctor.Output())
	} else if v, _ := strconv.ParseFloat(m[2], 64); v < 10 || v > 120 {
		t.Errorf("doctor: the shell gains %s MRs a minute; it registers about 60", m[2])
	}
	// Now MRs 16 times larger, 4 a second, up to 7/8 of the limit and
	// no further until the flag is seen: over the flag's 80%, short of
	// the limit, however slow the guest is to look.
	loop.hold.Store(mrHold)
	loop.pause.Store(int64(250 * time.Millisecond))
	loop.size.Store(64 << 10)
	labkit.WaitFor(t, labkit.Run, "the shell's memlock flag", func() bool {
		r := ownerRows(t)[strconv.Itoa(shellPID)]
		if r == nil {
			t.Fatalf("the shell is gone before its memlock flag was raised:\n%s", stderr.String())
		}
		return strings.Contains(fmt.Sprint(r["flags"]), "memlock")
	})
	if regexp.MustCompile(`(?m)^line \d+:`).MatchString(stderr.String()) {
		t.Fatalf("the shell failed before the memlock flag was raised:\n%s", stderr.String())
	}
	ratio := fmt.Sprintf(`verbscope_process_memlock_ratio{owner="%s"}`, owner)
	waitMetricsFor(t, labkit.Step, addr, ratio+" above 0.8", func(b string) bool {
		m := metricRE(ratio).FindStringSubmatch(b)
		v, _ := strconv.ParseFloat(valueOr(m), 64)
		return v > 0.8
	})
	// Then one MR past the limit: refused.
	loop.size.Store(256 << 10)
	loop.hold.Store(0)
	done := make(chan error, 1)
	go func() { done <- shell.Wait() }()
	select {
	case err := <-done:
		if err == nil || !regexp.MustCompile(`(?i)ENOMEM|cannot allocate memory`).MatchString(stderr.String()) {
			t.Errorf("the shell ended with %v, want its registration refused with ENOMEM:\n%s", err, stderr.String())
		}
	case <-time.After(labkit.Run):
		t.Fatalf("the shell's registrations never failed under a 1 MiB limit:\n%s", stderr.String())
	}

	hostPinned(t, srv, cli)

	// A holder killed while a child keeps its uverbs files: its QPs are
	// a gone process's until the keeper ends.
	holder, _, stop := qpholder.StartKept(t, 2)
	defer stop()
	if err := syscall.Kill(int(holder), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Its QPs count as its own while it is a zombie (the test has not
	// reaped it) if its main thread made them, as no process's (pid 0)
	// if another thread did: either way flagged gone.
	var last map[string]map[string]any
	defer func() {
		if t.Failed() {
			t.Logf("the last res owners: %v", last)
		}
	}()
	goneQPs := func() float64 {
		last = ownerRows(t)
		n := 0.0
		for _, r := range last {
			if strings.Contains(fmt.Sprint(r["flags"]), "gone") {
				n += num(r, "qp")
			}
		}
		return n
	}
	labkit.WaitFor(t, labkit.Release, "the killed holder's 2 QPs flagged gone", func() bool { return goneQPs() == 2 })
	stop()
	labkit.WaitFor(t, labkit.Release, "the gone process's QPs released", func() bool { return goneQPs() == 0 })
	t.Logf("TestResOwners took %v", time.Since(start).Round(time.Second))
}

// hostPinned: what the kernel counts as pinned for each of the pair
// (VmPin; rc_pingpong registers one page-aligned buffer) is its MR bytes
// rounded up to pages, as res owners says, and res owners by host sums
// every process's beside the host's MemTotal. The shell has ended: what
// holds MRs now holds them still.
func hostPinned(t *testing.T, pair ...*labkit.Proc) {
	t.Helper()
	rows := ownerRows(t)
	var pinned, vmpin float64
	for _, r := range rows {
		pinned, vmpin = pinned+num(r, "pinned"), vmpin+num(r, "vmpin")
	}
	page := float64(os.Getpagesize())
	for _, p := range pair {
		pid := strconv.Itoa(int(p.PID()))
		r := rows[pid]
		kernel := procKB(t, "/proc/"+pid+"/status", "VmPin")
		if num(r, "vmpin") != kernel || kernel != math.Ceil(num(r, "pinned")/page)*page || kernel == 0 {
			t.Errorf("pid %s: res owners says pinned %v vmpin %v; the kernel's VmPin is %v", pid, r["pinned"], r["vmpin"], kernel)
		}
	}
	var host []map[string]any
	if err := json.Unmarshal(verbscopeRes(t, "owners", "by", "host", "-j"), &host); err != nil || len(host) != 1 {
		t.Fatalf("res owners by host -j: %v, %d rows", err, len(host))
	}
	h := host[0]
	if num(h, "pinned") != pinned || num(h, "vmpin") != vmpin || num(h, "memtotal") != procKB(t, "/proc/meminfo", "MemTotal") || num(h, "processes") < 2 {
		t.Errorf("by host: %v; the processes' rows sum to pinned %v, vmpin %v", h, pinned, vmpin)
	}
}

// procKB reads a "Key: N kB" line of a proc file, in bytes.
func procKB(t *testing.T, path, key string) float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + key + `:\s+(\d+) kB$`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s has no %s line", path, key)
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	return v * 1024
}

// ownerCgroups makes the test's two cgroups: one named like a systemd
// service, one like containerd's container of a Kubernetes pod. They sit
// where systemd and the kubelet put them, at the top of the tree (the
// guest runs no systemd): sysfsmon takes a unit's or a pod's name only
// where its giver is known, never inside another cgroup, such as the
// one labtest runs each package in. So they are outside that cgroup,
// and the cleanup kills what is left in them (cgroup.kill) before it
// removes the folders it made.
func ownerCgroups(t *testing.T) (unit, pod string) {
	t.Helper()
	const base = "/sys/fs/cgroup"
	unit = filepath.Join(base, "system.slice", "x.service")
	slice := "kubepods-besteffort-pod" + strings.ReplaceAll(ownersPod, "-", "_") + ".slice"
	pod = filepath.Join(base, "kubepods.slice", "kubepods-besteffort.slice", slice, "cri-containerd-"+ownersCID+".scope")
	var made []string // parents first
	for _, leaf := range []string{unit, pod} {
		var chain []string
		for d := leaf; d != base; d = filepath.Dir(d) {
			chain = append([]string{d}, chain...)
		}
		for _, d := range chain {
			err := os.Mkdir(d, 0o755)
			switch {
			case err == nil:
				made = append(made, d)
			case !errors.Is(err, fs.ErrExist):
				t.Fatalf("make cgroup %s: %v", d, err)
			}
		}
	}
	t.Cleanup(func() {
		for _, d := range []string{unit, pod} {
			if err := os.WriteFile(filepath.Join(d, "cgroup.kill"), []byte("1"), 0o644); err != nil {
				t.Errorf("kill what is left in %s: %v", d, err)
			}
		}
		for i := len(made) - 1; i >= 0; i-- {
			d := made[i]
			labkit.WaitFor(t, labkit.Step, "cgroup "+d+" removed (its last process reaped)", func() bool {
				return os.Remove(d) == nil
			})
		}
	})
	// What the test reads back is what sysfsmon reads of these paths.
	if c := sysfsmon.ParseCgroupPath(strings.TrimPrefix(pod, base)); c.PodUID != ownersPod || c.ContainerID != ownersCID {
		t.Fatalf("the pod cgroup %s reads as %+v", pod, c)
	}
	if c := sysfsmon.ParseCgroupPath(strings.TrimPrefix(unit, base)); c.Unit != "x.service" {
		t.Fatalf("the unit cgroup %s reads as %+v", unit, c)
	}
	return unit, pod
}

func joinCgroup(t *testing.T, dir string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
		t.Fatalf("move %d into %s: %v", pid, dir, err)
	}
}

// startMRLoop starts `verbscope shell` reading commands from a pipe, in
// the pod's cgroup, with RLIMIT_MEMLOCK 1 MiB and without CAP_IPC_LOCK
// (dropped from the bounding set of the thread that forks it, so the
// root-run shell has it in no set): then ib_umem_get enforces the
// limit. It opens the device and a PD, then registers a 4 KiB MR a
// second, or once the test stores 32 KiB in the size it returns, one of
// those every 2 s, until a registration fails and the script stops.
// mrHold is where the MR loop stops growing while the test looks for the
// memlock flag: 7/8 of the shell's 1 MiB limit, above the flag's 80%.
const mrHold = 7 << 17

// mrLoop is what the test changes of the shell's MR loop as it runs: the
// size of each MR, the pause after each, and the bytes it holds at (0:
// none, it registers until the shell refuses).
type mrLoop struct {
	size, pause, hold atomic.Int64
}

// startMRLoop starts a verbs shell in podDir's cgroup, without
// CAP_IPC_LOCK under a 1 MiB RLIMIT_MEMLOCK, that registers an MR of
// loop.size every loop.pause: at first 4 KiB a second.
func startMRLoop(t *testing.T, podDir string) (*exec.Cmd, *syncio.Buffer, *mrLoop) {
	t.Helper()
	cmd := exec.Command("verbscope", "shell", "--dev", labkit.Env(t, "LAB_DEV"))
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := syncio.NewBuffer()
	cmd.Stdout, cmd.Stderr = io.Discard, out
	started := make(chan error, 1)
	go func() {
		// The thread keeps the dropped capability: it is locked and
		// never unlocked, so it ends with this goroutine.
		runtime.LockOSThread()
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, unix.CAP_IPC_LOCK, 0, 0, 0); err != nil {
			started <- fmt.Errorf("drop CAP_IPC_LOCK: %w", err)
			return
		}
		started <- cmd.Start()
	}()
	if err := <-started; err != nil {
		t.Fatalf("start the MR loop: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); in.Close() })
	lim := unix.Rlimit{Cur: 1 << 20, Max: 1 << 20}
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_MEMLOCK, &lim, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	joinCgroup(t, podDir, cmd.Process.Pid)
	loop := new(mrLoop)
	loop.size.Store(4 << 10)
	loop.pause.Store(int64(time.Second))
	go func() {
		io.WriteString(in, "open\npd\n")
		var total int64
		for {
			n := loop.size.Load()
			if h := loop.hold.Load(); h > 0 && total+n > h {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			if _, err := fmt.Fprintf(in, "mr size=%d\n", n); err != nil {
				return // the shell stopped
			}
			total += n
			time.Sleep(time.Duration(loop.pause.Load()))
		}
	}()
	return cmd, out, loop
}

// ownerRows runs `verbscope res owners -j ARGS` and returns its rows by
// their group's key (pid, unit, container or pod).
func ownerRows(t *testing.T, args ...string) map[string]map[string]any {
	t.Helper()
	var rows []map[string]any
	if err := json.Unmarshal(verbscopeRes(t, append([]string{"owners", "-j"}, args...)...), &rows); err != nil {
		t.Fatal(err)
	}
	key := "pid"
	if len(args) == 2 {
		key = args[1]
	}
	out := map[string]map[string]any{}
	for _, r := range rows {
		out[fmt.Sprint(r[key])] = r
	}
	return out
}

func num(r map[string]any, k string) float64 {
	v, _ := r[k].(float64)
	return v
}

func pidsOf(r map[string]any) []string {
	var out []string
	list, _ := r["pids"].([]any)
	for _, p := range list {
		out = append(out, fmt.Sprint(p))
	}
	return out
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func metricRE(series string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`)
}

func valueOr(m []string) string {
	if m == nil {
		return ""
	}
	return m[1]
}
