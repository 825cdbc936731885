//go:build lab

package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/doctor"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/oracle"
)

// These tests run the verbscope binary's doctor in the lab VM, first on
// the healthy lab, then after breaking one thing at a time for real in the
// same boot (and putting it back), each time against rdma-core's and
// iproute2's own view of the same thing.

// labDoctor runs `verbscope doctor -j ARGS`, as root or, with uid > 0, as
// that user (setuid and setgid before exec, as su does; busybox has su
// but no adduser, and su needs a passwd entry the lab does not have).
func labDoctor(t *testing.T, uid int, args ...string) (int, *doctor.Report, string) {
	t.Helper()
	bin := "verbscope"
	if uid > 0 {
		bin = userBinary(t)
	}
	cmd := exec.Command(bin, append([]string{"doctor", "-j"}, args...)...)
	cmd.Dir = "/tmp"
	if uid > 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(uid)}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("verbscope doctor: %v", err)
	}
	var rep doctor.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("verbscope doctor %v: exit %d, %v\nstdout:\n%s\nstderr:\n%s", args, code, err, stdout.String(), stderr.String())
	}
	return code, &rep, stderr.String()
}

// userBinary copies the verbscope binary where any user may run it: the
// share labtest puts it on (/mnt/lab) is readable by root only.
func userBinary(t *testing.T) string {
	t.Helper()
	src, err := exec.LookPath("verbscope")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "doctor-user-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "verbscope")
	if err := os.WriteFile(dst, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dst
}

func check(t *testing.T, rep *doctor.Report, id string) doctor.Result {
	t.Helper()
	for _, c := range rep.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s in the report", id)
	return doctor.Result{}
}

// expect asserts a check's verdict and words of its summary and fixes.
func expect(t *testing.T, rep *doctor.Report, id string, v doctor.Verdict, summary []string, fixes ...string) doctor.Result {
	t.Helper()
	c := check(t, rep, id)
	if c.Verdict != v {
		t.Errorf("%s: %s, want %s: %s\nevidence: %+v", id, c.Verdict, v, c.Summary, c.Evidence)
	}
	for _, s := range summary {
		if !strings.Contains(c.Summary, s) {
			t.Errorf("%s: summary %q lacks %q", id, c.Summary, s)
		}
	}
	all := strings.Join(c.Fix, "\n")
	for _, f := range fixes {
		if !strings.Contains(all, f) {
			t.Errorf("%s: fixes lack %q:\n%s", id, f, all)
		}
	}
	return c
}

func evidence(t *testing.T, c doctor.Result, what string) string {
	t.Helper()
	for _, e := range c.Evidence {
		if e.What == what {
			return e.Value
		}
	}
	t.Fatalf("%s: no evidence %q in %+v", c.ID, what, c.Evidence)
	return ""
}

func devinfo(t *testing.T, asUID int) (*oracle.Devinfo, error) {
	t.Helper()
	cmd := exec.Command("ibv_devinfo", "-v")
	if asUID > 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(asUID), Gid: uint32(asUID)}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, errors.New(strings.TrimSpace(string(out)))
	}
	return oracle.ParseDevinfo(string(out))
}

// idleCounts is how many objects of each kind rdma shows.
func rdmaCount(t *testing.T, kind string) int {
	return len(parse(t, labkit.RdmaJSON(t, kind)))
}

// On the healthy lab every check passes but irqs (rxe has no interrupts),
// the numbers are those of ibv_devinfo and rdma, and the probe leaves no
// object behind.
func TestDoctorLabHealthy(t *testing.T) {
	labkit.Clean(t)
	dev, gidIdx := labkit.Env(t, "LAB_DEV"), labkit.Env(t, "LAB_GID_INDEX")
	idle := map[string]int{}
	for _, k := range []string{"qp", "cq", "mr", "pd", "srq", "ctx"} {
		idle[k] = rdmaCount(t, k)
	}
	code, rep, stderr := labDoctor(t, 0)
	if code != 0 {
		t.Errorf("exit %d on the healthy lab; failed: %v", code, rep.Summary.Failed)
	}
	if !strings.Contains(stderr, "doctor: registering 64 MiB and creating a QP on "+dev+"...") {
		t.Errorf("no progress line for the probe on stderr:\n%s", stderr)
	}
	for _, id := range []string{"modules", "devices", "rdma-core", "uverbs-perms", "ports", "gids", "memlock", "mr-qp", "leaks", "limits"} {
		expect(t, rep, id, doctor.Pass, nil)
	}
	expect(t, rep, "irqs", doctor.NA, []string{dev + " is a software device on veth0: it has no interrupts of its own"})
	if !rep.Host.Live || rep.Host.UID == nil || *rep.Host.UID != 0 {
		t.Errorf("host %+v", rep.Host)
	}

	di, err := devinfo(t, 0)
	if err != nil || len(di.Devices) != 1 {
		t.Fatalf("ibv_devinfo: %v", err)
	}
	d := di.Devices[0]
	if st, _ := oracle.Value(d.Ports[0].Fields["state"]); st != "PORT_ACTIVE" {
		t.Errorf("ibv_devinfo: port state %q", st)
	}
	expect(t, rep, "ports", doctor.Pass, []string{dev + " port 1 ACTIVE, LinkUp"})
	// The GID doctor recommends is the lab's, and ibv_devinfo's RoCE v2
	// GID of 10.0.0.1.
	expect(t, rep, "gids", doctor.Pass, []string{dev + " port 1: GID index " + gidIdx + " (RoCE v2, " + labkit.Env(t, "LAB_IP") + ")"})
	found := false
	for _, g := range d.Ports[0].GIDs {
		if strconv.Itoa(g.Index) == gidIdx && g.GID == "::ffff:"+labkit.Env(t, "LAB_IP") && g.Type == "RoCE v2" {
			found = true
		}
	}
	if !found {
		t.Errorf("ibv_devinfo has no RoCE v2 GID %s for %s: %+v", gidIdx, labkit.Env(t, "LAB_IP"), d.Ports[0].GIDs)
	}
	// Limits: the counts are rdma's, the limits ibv_devinfo's.
	lim := check(t, rep, "limits")
	for kind, field := range map[string]string{"QP": "max_qp", "CQ": "max_cq", "MR": "max_mr", "PD": "max_pd", "SRQ": "max_srq"} {
		v := evidence(t, lim, dev+" "+kind+"s")
		want := strconv.Itoa(idle[strings.ToLower(kind)]) + " of " + d.Fields[field] + " ("
		if !strings.HasPrefix(v, want) {
			t.Errorf("limits %s: %q, want %q... (rdma resource show, ibv_devinfo %s)", kind, v, want, field)
		}
	}
	// The probe: a real 64 MiB MR and a QP in INIT, then nothing left.
	mr := expect(t, rep, "mr-qp", doctor.Pass, []string{dev + ": registered 64 MiB (lkey 0x", "to INIT on port 1"})
	if v := evidence(t, mr, dev+" ibv_modify_qp"); !strings.Contains(v, ": INIT (") {
		t.Errorf("modify: %q", v)
	}
	if v := evidence(t, mr, dev+" teardown"); !strings.HasPrefix(v, "destroyed the QP, CQ, MR and PD") {
		t.Errorf("teardown: %q", v)
	}
	for k, n := range idle {
		if got := rdmaCount(t, k); got != n {
			t.Errorf("rdma resource show %s: %d objects after doctor, %d before: the probe left some", k, got, n)
		}
	}
	// rdma-core: the uverbs device is the one sysfs names.
	ibdev, err := os.ReadFile("/sys/class/infiniband_verbs/uverbs0/ibdev")
	if err != nil || strings.TrimSpace(string(ibdev)) != dev {
		t.Fatalf("uverbs0/ibdev: %q, %v", ibdev, err)
	}
	expect(t, rep, "rdma-core", doctor.Pass, []string{"uverbs ABI 6; " + dev + " on uverbs0, driver ABI 2"})
}

// ip link set veth0 down takes rxe0's port down: ports fails and says to
// bring veth0 up; ibv_devinfo agrees. Then it is put back.
func TestDoctorLabPortDown(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	netdev := labkit.Env(t, "LAB_NETDEV")
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("/usr/sbin/ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	portState := func() string {
		b, _ := os.ReadFile("/sys/class/infiniband/" + dev + "/ports/1/state")
		return strings.TrimSpace(string(b))
	}
	ip("link", "set", netdev, "down")
	t.Cleanup(func() {
		ip("link", "set", netdev, "up")
		labkit.WaitFor(t, labkit.Step, dev+" port 1 ACTIVE again", func() bool { return portState() == "4: ACTIVE" })
	})
	labkit.WaitFor(t, labkit.Step, dev+" port 1 down", func() bool { return portState() != "4: ACTIVE" })
	code, rep, _ := labDoctor(t, 0, "--only", "ports,gids,modules")
	if code != 1 {
		t.Errorf("exit %d with the port down, want 1", code)
	}
	c := expect(t, rep, "ports", doctor.Fail, []string{dev + " port 1 is DOWN (Disabled): its netdev " + netdev + " is down"}, "ip link set "+netdev+" up")
	if v := evidence(t, c, dev+" port 1"); v != "DOWN, Disabled" {
		t.Errorf("port evidence %q", v)
	}
	expect(t, rep, "gids", doctor.NA, []string{"no port is ACTIVE"})
	expect(t, rep, "modules", doctor.Pass, nil)
	di, err := devinfo(t, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := oracle.Value(di.Devices[0].Ports[0].Fields["state"]); st != "PORT_DOWN" {
		t.Errorf("ibv_devinfo says %q while doctor says DOWN", st)
	}

	ip("link", "set", netdev, "up")
	labkit.WaitFor(t, labkit.Step, dev+" port 1 ACTIVE again", func() bool { return portState() == "4: ACTIVE" })
	if code, rep, _ := labDoctor(t, 0, "--only", "ports"); code != 0 {
		t.Errorf("exit %d after ip link set %s up: %s", code, netdev, check(t, rep, "ports").Summary)
	}
}

// Without /etc/libibverbs.d/rxe.driver the kernel still has rxe0 but
// libibverbs lists nothing: devices fails and names the missing file,
// as IBV_SHOW_WARNINGS=1 ibv_devices does.
func TestDoctorLabProviderHidden(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	// Aside on the same file system (rename), outside the folder
	// libibverbs reads.
	const conf, aside = "/etc/libibverbs.d/rxe.driver", "/etc/rxe.driver.aside"
	if err := os.Rename(conf, aside); err != nil {
		t.Fatal(err)
	}
	restored := false
	restore := func() {
		if !restored {
			if err := os.Rename(aside, conf); err != nil {
				t.Fatalf("putting %s back: %v", conf, err)
			}
			restored = true
		}
	}
	t.Cleanup(restore)

	cmd := exec.Command("ibv_devices")
	cmd.Env = append(os.Environ(), "IBV_SHOW_WARNINGS=1")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "no userspace device-specific driver found for "+dev) {
		t.Errorf("ibv_devices without the provider's config:\n%s", out)
	}
	if rdmaDev, err := exec.Command("rdma", "dev").Output(); err != nil || !strings.Contains(string(rdmaDev), dev) {
		t.Errorf("rdma dev: %q, %v: the kernel should still have %s", rdmaDev, err, dev)
	}
	code, rep, _ := labDoctor(t, 0, "--only", "devices,mr-qp,modules")
	if code != 1 {
		t.Errorf("exit %d with the provider hidden, want 1", code)
	}
	c := expect(t, rep, "devices", doctor.Fail,
		[]string{"libibverbs does not list " + dev + `: /etc/libibverbs.d has no "driver rxe" line, so the rxe provider is never loaded`},
		`restore /etc/libibverbs.d/rxe.driver with the line "driver rxe"`, "IBV_SHOW_WARNINGS=1 ibv_devices")
	if v := evidence(t, c, "provider libraries"); v != "rxe" {
		t.Errorf("provider libraries %q: librxe-rdmav34.so is still installed", v)
	}
	expect(t, rep, "mr-qp", doctor.Fail, []string{"nothing to register memory with: libibverbs lists no device"})
	expect(t, rep, "modules", doctor.Pass, nil)

	restore()
	if code, rep, _ := labDoctor(t, 0, "--only", "devices"); code != 0 {
		t.Errorf("exit %d with %s back: %s", code, conf, check(t, rep, "devices").Summary)
	}
}

// As an unprivileged user (uid 1000) in the lab: the 8 MiB RLIMIT_MEMLOCK
// makes the 64 MiB registration fail with ENOMEM, as ibv_rc_pingpong -s
// 64 MiB fails for the same user; with uverbs0 at mode 000 the device
// cannot be opened at all, as ibv_devinfo cannot; root opens it anyway.
func TestDoctorLabUser(t *testing.T) {
	labkit.Clean(t)
	dev := labkit.Env(t, "LAB_DEV")
	const user = 1000
	node := "/dev/infiniband/uverbs0"

	// The registration as the user: the memlock story.
	pp := exec.Command("ibv_rc_pingpong", "-g", labkit.Env(t, "LAB_GID_INDEX"), "-s", strconv.Itoa(64<<20))
	pp.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: user, Gid: user}}
	out, err := pp.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Couldn't register MR") {
		t.Errorf("ibv_rc_pingpong -s 64MiB as uid %d: %v\n%s", user, err, out)
	}
	code, rep, _ := labDoctor(t, user)
	if code != 1 {
		t.Errorf("exit %d as uid %d, want 1", code, user)
	}
	if rep.Host.UID == nil || *rep.Host.UID != user {
		t.Errorf("host uid %v", rep.Host.UID)
	}
	expect(t, rep, "memlock", doctor.Warn, []string{"this process may pin only 8 MiB (RLIMIT_MEMLOCK) and lacks CAP_IPC_LOCK"}, "'* - memlock unlimited'")
	mr := expect(t, rep, "mr-qp", doctor.Fail,
		[]string{dev + ": registering 64 MiB failed with ENOMEM: pinning it exceeds RLIMIT_MEMLOCK (8 MiB) and this process lacks CAP_IPC_LOCK"},
		"LimitMEMLOCK=infinity")
	if v := evidence(t, mr, dev+" ibv_reg_mr"); !strings.Contains(v, "(ENOMEM)") {
		t.Errorf("ibv_reg_mr evidence %q", v)
	}
	expect(t, rep, "uverbs-perms", doctor.Pass, []string{"uid 1000 may open /dev/infiniband/uverbs0 (others)"})
	expect(t, rep, "devices", doctor.Pass, nil)
	// A smaller registration fits the limit: the same user passes.
	if code, rep, _ := labDoctor(t, user, "--only", "mr-qp,memlock", "--mr-size", "4"); code != 0 {
		t.Errorf("exit %d with a 4 MiB probe as uid %d: %s", code, user, check(t, rep, "mr-qp").Summary)
	}

	// Mode 000: nobody but root may open the node.
	if err := os.Chmod(node, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.Chmod(node, 0o666); err != nil {
			t.Errorf("chmod 666 %s: %v", node, err)
		}
	})
	if _, err := devinfo(t, user); err == nil || !strings.Contains(err.Error(), "Failed to open device") {
		t.Errorf("ibv_devinfo as uid %d with %s at 000: %v", user, node, err)
	}
	code, rep, _ = labDoctor(t, user)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	expect(t, rep, "uverbs-perms", doctor.Fail,
		[]string{"uid 1000 cannot open /dev/infiniband/uverbs0 (c--------- uid 0 gid 0): ibv_open_device fails with EACCES"},
		"chmod 0666 /dev/infiniband/uverbs0")
	// libibverbs says ENOENT, not EACCES: doctor says what it means.
	closed := "/dev/infiniband/uverbs0 (c--------- uid 0 gid 0) is not read-write for uid 1000"
	expect(t, rep, "devices", doctor.Fail, []string{"libibverbs lists " + dev + " but cannot open it (ENOENT): " + closed}, "see uverbs-perms")
	expect(t, rep, "mr-qp", doctor.Fail, []string{dev + ": ibv_open_device failed with ENOENT: " + closed}, "see uverbs-perms")

	// Root opens it whatever its mode, as ibv_devinfo does.
	if _, err := devinfo(t, 0); err != nil {
		t.Errorf("ibv_devinfo as root with %s at 000: %v", node, err)
	}
	code, rep, _ = labDoctor(t, 0, "--only", "uverbs-perms,mr-qp")
	if code != 0 {
		t.Errorf("exit %d as root with %s at 000, want 0", code, node)
	}
	expect(t, rep, "uverbs-perms", doctor.Pass, []string{"uid 0 may open /dev/infiniband/uverbs0 (CAP_DAC_OVERRIDE)"})
}
