package sysfsmon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cmpWarnings compares warnings by path and message: the errors inside
// are values like *strconv.NumError or syscall.Errno.
var cmpWarnings = cmp.Comparer(func(a, b Warning) bool {
	return a.Path == b.Path && a.Err.Error() == b.Err.Error()
})

// fixedClock ticks one second per reading, so rates are exact.
func fixedClock() func() time.Time {
	t := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// fixture opens testdata/<name>: its sys, proc and host root.
func fixture(t *testing.T, name string) *FS {
	t.Helper()
	dir := filepath.Join("testdata", name)
	f, err := NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), WithHostRoot(dir), WithClock(fixedClock()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func intp(n int) *int { return &n }

// testdata/rxe0 is the lab's rxe0 recorded by record-rxe0.sh (GID table
// cut to 8 entries).
func TestRxe0Devices(t *testing.T) {
	devs, err := fixture(t, "rxe0").Devices()
	if err != nil {
		t.Fatal(err)
	}
	want := []Device{{
		Name: "rxe0", NodeType: 1, NodeTypeName: "CA",
		NodeGUID: "ec8b:5bff:fe8c:2a39", SysImageGUID: "ec8b:5bff:fe8c:2a39",
		NodeDesc: "rxe", Parent: "veth0", Soft: true, Driver: "rxe", Netdevs: []string{"veth0"}, Uverbs: "uverbs0",
		Ports: []Port{{
			Device: "rxe0", Port: 1, State: 4, StateName: "ACTIVE", PhysState: 5, PhysStateName: "LinkUp",
			RateText: "10 Gb/sec (1X FDR10)", Rate: Rate{Gbps: 10, Width: "1X", Speed: "FDR10"},
			LIDKnown: true, SMLIDKnown: true,
			CapMask: 0x00010000, LinkLayer: "Ethernet", Netdev: "veth0", NetdevMTU: 1500, NetdevState: "up",
			GIDTableLen: 8,
			GIDs: []GID{
				{Index: 0, GID: "fe80:0000:0000:0000:ec8b:5bff:fe8c:2a39", Addr: "fe80::ec8b:5bff:fe8c:2a39", IP: "fe80::ec8b:5bff:fe8c:2a39", Type: "RoCE v2", Netdev: "veth0"},
				{Index: 1, GID: "0000:0000:0000:0000:0000:ffff:0a00:0001", Addr: "::ffff:10.0.0.1", IP: "10.0.0.1", IPv4: true, Type: "RoCE v2", Netdev: "veth0"},
			},
			RecommendedGIDIndex: 1, PKeyTableLen: 1, PKeys: []string{"0xffff"},
		}},
	}}
	if diff := cmp.Diff(want, devs, cmpWarnings); diff != "" {
		t.Errorf("rxe0 devices (-want +got):\n%s", diff)
	}
}

// The empty gid_attrs entries of rxe fail with EINVAL; they are never
// read. A populated entry that fails (played here by swapping readFile)
// is a warning, and the GID is still listed.
func TestGIDAttrsEINVAL(t *testing.T) {
	f := fixture(t, "rxe0")
	read := f.readFile
	f.readFile = func(name string) ([]byte, error) {
		if strings.Contains(name, "gid_attrs") && (strings.HasSuffix(name, "/1") || strings.HasSuffix(name, "/5")) {
			return nil, &os.PathError{Op: "read", Path: name, Err: syscall.EINVAL}
		}
		return read(name)
	}
	d, err := f.Device("rxe0")
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{
		{Path: "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/1", Err: syscall.EINVAL},
		{Path: "/sys/class/infiniband/rxe0/ports/1/gid_attrs/ndevs/1", Err: syscall.EINVAL},
	}
	if diff := cmp.Diff(want, d.Warnings, cmpWarnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if !errors.Is(d.Warnings[0].Err, syscall.EINVAL) {
		t.Errorf("warning %v does not wrap EINVAL", d.Warnings[0].Err)
	}
	p := d.Ports[0]
	if len(p.GIDs) != 2 || p.GIDs[1].IP != "10.0.0.1" || p.GIDs[1].Type != "" {
		t.Errorf("GIDs after a failed gid_attrs read: %+v", p.GIDs)
	}
	if p.RecommendedGIDIndex != -1 {
		t.Errorf("recommended GID index %d without a known type, want -1", p.RecommendedGIDIndex)
	}
}

func TestDeviceErrors(t *testing.T) {
	f := fixture(t, "rxe0")
	for _, name := range []string{"nope0", "", "..", "a/b"} {
		if _, err := f.Device(name); err == nil || !strings.HasPrefix(err.Error(), "sysfsmon: device: ") {
			t.Errorf("Device(%q): %v, want a sysfsmon: device: error", name, err)
		}
	}
	empty := t.TempDir()
	g, err := NewFS(empty, empty)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Devices(); !errors.Is(err, ErrNoRDMA) {
		t.Errorf("Devices without class/infiniband: %v, want ErrNoRDMA", err)
	}
	if _, err := NewFS(filepath.Join(empty, "missing"), empty); err == nil {
		t.Error("NewFS on a missing folder: no error")
	}
}

func TestRxe0Counters(t *testing.T) {
	s, err := fixture(t, "rxe0").Counters()
	if err != nil {
		t.Fatal(err)
	}
	// rxe has no counters/ (no PMA) and no device-level hw_counters/;
	// lifespan is a setting and left out.
	names := map[string]bool{}
	for _, c := range s.Counters {
		if c.Device != "rxe0" || c.Port != 1 || c.Group != "hw_counters" {
			t.Errorf("unexpected counter %+v", c)
		}
		names[c.Name] = c.Error
	}
	// The mark is the registry's: errors and terminal failures, not the
	// retries (rcvd_rnr_err and the other *_err that are retried).
	want := map[string]bool{
		"ack_deferred": false, "completer_retry_err": false, "duplicate_request": false, "link_downed": true,
		"out_of_seq_request": false, "rcvd_pkts": false, "rcvd_rnr_err": false, "rcvd_seq_err": false,
		"rdma_recvs": false, "rdma_sends": false, "retry_exceeded_err": true, "retry_rnr_exceeded_err": true,
		"send_err": true, "send_rnr_err": false, "sent_pkts": false,
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("rxe0 counters and their error flags (-want +got):\n%s", diff)
	}
	if len(s.Warnings) != 0 {
		t.Errorf("warnings: %v", s.Warnings)
	}
}

func TestRxe0IRQs(t *testing.T) {
	s, err := fixture(t, "rxe0").IRQs()
	if err != nil {
		t.Fatal(err)
	}
	want := &IRQSnapshot{
		Time: s.Time, CPUs: []int{0, 1},
		Devices: []DeviceIRQs{{
			Device: "rxe0", Netdevs: []string{"veth0"}, Soft: true,
			NoIRQs: "software device on veth0: it has no interrupts of its own; its packets arrive through veth0's and its completions run in kernel threads",
		}},
	}
	if diff := cmp.Diff(want, s, cmpWarnings); diff != "" {
		t.Errorf("rxe0 IRQs (-want +got):\n%s", diff)
	}
}

// devTree makes a /dev/infiniband with the permissions the lab shows
// (git keeps no modes and no device nodes, so regular files stand in).
func devTree(t *testing.T) string {
	root := t.TempDir()
	dir := filepath.Join(root, "dev", "infiniband")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"uverbs0": 0o666, "umad0": 0o600, "issm0": 0o600, "rdma_cm": 0o666} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	return root
}

func TestRxe0Host(t *testing.T) {
	root := devTree(t)
	// The recorded tree has usr/lib and etc/libibverbs.d; link them into
	// the temp root.
	for _, d := range []string{"usr", "etc"} {
		if err := os.Symlink(mustAbs(t, "testdata/rxe0/"+d), filepath.Join(root, d)); err != nil {
			t.Fatal(err)
		}
	}
	f, err := NewFS("testdata/rxe0/sys", "testdata/rxe0/proc", WithHostRoot(root))
	if err != nil {
		t.Fatal(err)
	}
	h := f.Host()
	uid, gid := os.Getuid(), os.Getgid()
	want := &Host{
		KernelRelease: "6.1.0-57-amd64",
		KernelVersion: "Linux version 6.1.0-57-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14+deb12u1) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3 (2026-11-26)",
		CPUs:          2,
		Modules: []Module{
			{Name: "ib_cm", Size: 139264, Refs: 1, UsedBy: []string{"rdma_cm"}, State: "Live"},
			{Name: "ib_core", Size: 442368, Refs: 7, UsedBy: []string{"rdma_ucm", "rdma_cm", "iw_cm", "ib_cm", "ib_umad", "rdma_rxe", "ib_uverbs"}, State: "Live"},
			{Name: "ib_umad", Size: 45056, State: "Live"},
			{Name: "ib_uverbs", Size: 172032, Refs: 2, UsedBy: []string{"rdma_ucm", "rdma_rxe"}, State: "Live"},
			{Name: "iw_cm", Size: 61440, Refs: 1, UsedBy: []string{"rdma_cm"}, State: "Live"},
			{Name: "rdma_cm", Size: 139264, Refs: 1, UsedBy: []string{"rdma_ucm"}, State: "Live"},
			{Name: "rdma_rxe", Size: 135168, State: "Live"},
			{Name: "rdma_ucm", Size: 32768, State: "Live"},
		},
		RDMACore: RDMACore{Version: "44.0", Source: "file name", Detail: "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"},
		DevNodes: []DevNode{
			{Name: "issm0", Mode: "-rw-------", UID: uid, GID: gid, IBDev: "rxe0", MajorMin: "231:64"},
			{Name: "rdma_cm", Mode: "-rw-rw-rw-", UID: uid, GID: gid, WorldRW: true},
			{Name: "umad0", Mode: "-rw-------", UID: uid, GID: gid, IBDev: "rxe0", MajorMin: "231:0"},
			{Name: "uverbs0", Mode: "-rw-rw-rw-", UID: uid, GID: gid, WorldRW: true, IBDev: "rxe0", MajorMin: "231:192"},
		},
		UverbsABI: 6, DriverABIs: map[string]int{"uverbs0": 2},
		MemlockSoft: Limit{Value: 8 << 20}, MemlockHard: Limit{Value: 8 << 20},
		// root with every capability of 6.1 (0-40)
		Cred: &Cred{CapEff: 1<<41 - 1},
		VerbsConf: VerbsConf{Dir: "/etc/libibverbs.d", DirFound: true,
			Drivers:     []VerbsDriver{{Name: "rxe", File: "/etc/libibverbs.d/rxe.driver"}},
			ProviderDir: "/usr/lib/x86_64-linux-gnu/libibverbs", Providers: []string{"rxe"}},
	}
	if diff := cmp.Diff(want, h, cmpWarnings); diff != "" {
		t.Errorf("rxe0 host (-want +got):\n%s", diff)
	}
	for _, m := range []string{"ib_core", "ib_uverbs", "rdma_rxe", "ib_umad", "rdma_ucm"} {
		if !h.HasModule(m) {
			t.Errorf("HasModule(%s) = false", m)
		}
	}
	if h.HasModule("veth") || h.HasModule("mlx5_ib") {
		t.Error("HasModule says yes to a module that is not RDMA or not loaded")
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
