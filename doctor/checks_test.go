package doctor

import (
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/verbs"
)

// runOne runs one check over the facts.
func runOne(t *testing.T, f *Facts, id string) Result {
	t.Helper()
	sel, err := Select([]string{id})
	if err != nil {
		t.Fatal(err)
	}
	return Run(f, sel).Checks[0]
}

// checkCase is one check on one set of facts: the verdict it must reach,
// and words its summary and fixes must contain.
type checkCase struct {
	name    string
	id      string
	facts   func(t *testing.T) *Facts
	verdict Verdict
	summary []string
	fix     []string
	// evidence are "what=value" pairs (value as a substring) that must be
	// among the evidence.
	evidence []string
}

func rxe0(t *testing.T) *Facts { return treeFacts(t, "rxe0") }
func mlx5(t *testing.T) *Facts { return treeFacts(t, "mlx5") }

// with returns facts made by base and changed by fn.
func with(base func(*testing.T) *Facts, fn func(t *testing.T, f *Facts)) func(*testing.T) *Facts {
	return func(t *testing.T) *Facts {
		f := base(t)
		fn(t, f)
		return f
	}
}

func dropModule(f *Facts, name string) {
	f.Host.Modules = slices.DeleteFunc(slices.Clone(f.Host.Modules), func(m sysfsmon.Module) bool { return m.Name == name })
}

var checkCases = []checkCase{
	// modules
	{name: "rxe0 has everything", id: "modules", facts: rxe0, verdict: Pass,
		summary:  []string{"ib_core, ib_uverbs, the driver rdma_rxe, rdma_cm, rdma_ucm and ib_umad present"},
		evidence: []string{"device driver=rdma_rxe", "ib_umad=loaded"}},
	{name: "mlx5 host without ib_umad", id: "modules", facts: mlx5, verdict: Warn,
		summary:  []string{"ib_umad is not loaded", "opensm"},
		fix:      []string{"modprobe ib_umad"},
		evidence: []string{"device driver=mlx5_ib", "ib_umad=not loaded"}},
	{name: "no ib_uverbs", id: "modules", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			dropModule(f, "ib_uverbs")
			f.Host.UverbsABI = 0
		}),
		summary: []string{"ib_uverbs is not loaded: no /dev/infiniband/uverbsN"}, fix: []string{"modprobe ib_uverbs"}},
	{name: "nothing loaded", id: "modules", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Host.Modules, f.Host.UverbsABI = nil, 0
			f.Devices = nil
		}),
		summary: []string{"no RDMA stack is loaded: no ib_core"},
		fix:     []string{"modprobe mlx5_ib", "rdma link add rxe0 type rxe netdev IFACE", "then modprobe ib_uverbs rdma_ucm ib_umad"}},
	{name: "built into the kernel", id: "modules", verdict: Pass,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Host.Modules = nil
			f.Host.DevNodes = rxe0DevNodes()
		}),
		summary: []string{"ib_core (built in), ib_uverbs (built in), rdma_cm (built in), rdma_ucm (built in) and ib_umad (built in) present"},
		evidence: []string{"ib_core=built into the kernel (/sys/class/infiniband has devices)", "ib_uverbs=built into the kernel",
			"device driver=none in /proc/modules, but devices exist", "rdma_cm=built into the kernel", "ib_umad=built into the kernel"}},
	{name: "no driver module, no devices", id: "modules", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			dropModule(f, "rdma_rxe")
			f.Host.Modules[1].UsedBy = []string{"rdma_ucm", "rdma_cm", "iw_cm", "ib_cm", "ib_umad", "ib_uverbs"}
			f.Devices = nil
		}),
		summary: []string{"no RDMA device driver is loaded"}, evidence: []string{"device driver=none: no module drives an RDMA device"}},
	{name: "no rdma_cm nor rdma_ucm", id: "modules", verdict: Warn,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			dropModule(f, "rdma_cm")
			dropModule(f, "rdma_ucm")
		}),
		summary:  []string{"rdma_ucm is not loaded (nor rdma_cm): no /dev/infiniband/rdma_cm, so programs that connect through librdmacm"},
		fix:      []string{"modprobe rdma_ucm (it loads rdma_cm)"},
		evidence: []string{"rdma_cm=not loaded", "rdma_ucm=not loaded"}},
	{name: "no host facts", id: "modules", verdict: NA, facts: with(rxe0, func(t *testing.T, f *Facts) { f.Host = nil }),
		summary: []string{"host facts were not read"}},

	// devices
	{name: "recorded tree", id: "devices", facts: rxe0, verdict: Pass, summary: []string{"the kernel has rxe0 (libibverbs not asked"}},
	{name: "live rxe0", id: "devices", facts: liveRxe0, verdict: Pass,
		summary:  []string{"rxe0: seen by the kernel and opened through libibverbs"},
		evidence: []string{"kernel devices=rxe0", "libibverbs devices=rxe0"}},
	{name: "provider config hidden", id: "devices", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.VerbsConf.Drivers = nil
			f.Verbs.Devices, f.Verbs.Open = nil, nil
			f.Verbs.ListErr = &verbs.Error{Op: "ibv_get_device_list", Err: verbs.ErrNoDevice}
		}),
		summary:  []string{`libibverbs does not list rxe0: /etc/libibverbs.d has no "driver rxe" line`},
		fix:      []string{`restore /etc/libibverbs.d/rxe.driver with the line "driver rxe"`, "IBV_SHOW_WARNINGS=1 ibv_devices"},
		evidence: []string{"libibverbs configuration=no driver lines", "provider libraries=rxe"}},
	{name: "mlx5: irdma0 has no uverbs device", id: "devices", verdict: Fail,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.Live = true
			f.Verbs = &VerbsFacts{Devices: []verbs.DeviceInfo{{Name: "mlx5_0"}, {Name: "mlx5_1"}},
				Open: map[string]VerbsDevice{"mlx5_0": {}, "mlx5_1": {}}}
		}),
		summary:  []string{"libibverbs cannot see irdma0: it has no uverbs device"},
		fix:      []string{"modprobe ib_uverbs"},
		evidence: []string{"mlx5_0=in sysfs and in libibverbs' list"}},
	{name: "mlx5: irdma0 with uverbs but no provider configured", id: "devices", verdict: Fail,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.Live = true
			f.Devices[0].Uverbs = "uverbs2"
			f.Verbs = &VerbsFacts{Devices: []verbs.DeviceInfo{{Name: "mlx5_0"}, {Name: "mlx5_1"}},
				Open: map[string]VerbsDevice{"mlx5_0": {}, "mlx5_1": {}}}
		}),
		summary:  []string{`libibverbs does not list irdma0: /etc/libibverbs.d has no "driver irdma" line`},
		fix:      []string{"/etc/libibverbs.d/irdma.driver"},
		evidence: []string{"libibverbs configuration=driver efa (/etc/libibverbs.d/efa.driver), driver mlx5 (/etc/libibverbs.d/mlx5.driver)", "provider libraries=efa, mlx5"}},
	{name: "provider configured but not installed", id: "devices", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.VerbsConf.Providers = []string{"mlx5"}
			f.Verbs.Devices = nil
		}),
		summary: []string{"the rxe provider library (librxe-rdmav*.so) is not installed"}, fix: []string{"apt install ibverbs-providers"}},
	{name: "cannot open: ENOENT for a node closed to the user", id: "devices", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Host.DevNodes[3].Mode = "c---------"
			f.Verbs.Open["rxe0"] = VerbsDevice{Err: &verbs.Error{Op: "ibv_open_device", Err: syscall.ENOENT}}
		}),
		summary: []string{"libibverbs lists rxe0 but cannot open it (ENOENT): /dev/infiniband/uverbs0 (c--------- uid 0 gid 0) is not read-write for uid 1000"},
		fix:     []string{"see uverbs-perms"}},
	{name: "cannot open: ENOENT, node missing", id: "devices", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.DevNodes = f.Host.DevNodes[:3]
			f.Verbs.Open["rxe0"] = VerbsDevice{Err: &verbs.Error{Op: "ibv_open_device", Err: syscall.ENOENT}}
		}),
		summary: []string{"cannot open it (ENOENT): /dev/infiniband/uverbs0 is missing"}},
	{name: "listed but cannot open", id: "devices", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Verbs.Open["rxe0"] = VerbsDevice{Err: &verbs.Error{Op: "ibv_open_device", Err: syscall.EACCES}}
		}),
		summary: []string{"libibverbs lists rxe0 but cannot open it", "EACCES"}, fix: []string{"see uverbs-perms"}},
	{name: "device in another netns", id: "devices", verdict: Warn,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Netlink.Devices = nil }),
		summary: []string{"rxe0 is in sysfs but netlink does not list it"}},
	{name: "no devices", id: "devices", verdict: Fail,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Devices, f.DevicesErr = nil, sysfsmon.ErrNoRDMA }),
		summary: []string{"the kernel has no RDMA device"}, evidence: []string{"kernel devices=no /sys/class/infiniband"}},

	// rdma-core
	{name: "rxe0", id: "rdma-core", facts: rxe0, verdict: Pass,
		summary: []string{"kernel 6.1.0-57-amd64, rdma-core 44.0, uverbs ABI 6; rxe0 on uverbs0, driver ABI 2"}},
	{name: "mlx5 from dpkg", id: "rdma-core", facts: mlx5, verdict: Fail,
		summary:  []string{"irdma0 has no uverbs device"},
		evidence: []string{"rdma-core=50.0-2ubuntu0.2", "mlx5_0=uverbs0", "mlx5_1=uverbs1"}},
	{name: "no rdma-core found", id: "rdma-core", verdict: Warn,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Host.RDMACore = sysfsmon.RDMACore{} }),
		summary: []string{"could not tell which rdma-core is installed"}, fix: []string{"apt install libibverbs1"}},
	{name: "devices without uverbs", id: "rdma-core", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Host.UverbsABI, f.Host.DriverABIs, f.Devices[0].Uverbs = 0, nil, ""
		}),
		summary: []string{"no uverbs interface (ib_uverbs not loaded)"}, fix: []string{"modprobe ib_uverbs"}},
	{name: "abi_version unreadable", id: "rdma-core", verdict: Pass,
		facts:    with(rxe0, func(t *testing.T, f *Facts) { f.Host.UverbsABI = 0 }),
		summary:  []string{"uverbs ABI unknown; rxe0 on uverbs0"},
		evidence: []string{"uverbs ABI=unknown: abi_version could not be read"}},
	{name: "provider installed but skipping the device", id: "rdma-core", verdict: Fail,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Verbs.Devices = nil }),
		summary: []string{"libibverbs skips rxe0 although its provider rxe is installed", "ABI (2)"}},
	{name: "no host facts", id: "rdma-core", verdict: NA, facts: with(rxe0, func(t *testing.T, f *Facts) { f.Host = nil })},

	// uverbs-perms
	{name: "lab nodes as root", id: "uverbs-perms", facts: liveRxe0, verdict: Pass,
		summary:  []string{"uid 0 may open /dev/infiniband/uverbs0 (owner)"},
		evidence: []string{"/dev/infiniband/umad0=crw------- uid 0 gid 0 (MAD access"}},
	{name: "chmod 000 as a user", id: "uverbs-perms", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Host.DevNodes[3].Mode = "c---------"
		}),
		summary:  []string{"uid 1000 cannot open /dev/infiniband/uverbs0 (c--------- uid 0 gid 0): ibv_open_device fails with EACCES"},
		fix:      []string{"chmod 0666 /dev/infiniband/uverbs0", `KERNEL=="uverbs*", MODE="0666"`},
		evidence: []string{"/dev/infiniband/uverbs0 (rxe0)=not read-write for uid 1000 (others)"}},
	{name: "chmod 000 as root", id: "uverbs-perms", verdict: Pass,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Host.DevNodes[3].Mode = "c---------" }),
		summary: []string{"uid 0 may open /dev/infiniband/uverbs0 (CAP_DAC_OVERRIDE)"}},
	{name: "group access", id: "uverbs-perms", verdict: Pass,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = &sysfsmon.Cred{UID: 1000, GID: 1000, Groups: []int{1000, 120}}
			f.Host.DevNodes[3].Mode, f.Host.DevNodes[3].GID = "crw-rw----", 120
		}),
		summary: []string{"uid 1000 may open /dev/infiniband/uverbs0 (group)"}},
	{name: "rdma_cm closed to users", id: "uverbs-perms", verdict: Warn,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Host.DevNodes[1].Mode = "crw-------"
		}),
		summary: []string{"uid 1000 cannot open /dev/infiniband/rdma_cm", "plain verbs work"}},
	{name: "recorded tree without /dev", id: "uverbs-perms", facts: rxe0, verdict: NA, summary: []string{"the recorded tree has no /dev/infiniband"}},
	{name: "node missing", id: "uverbs-perms", verdict: Fail,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Host.DevNodes = f.Host.DevNodes[:3] }),
		summary: []string{"no /dev/infiniband/uverbs0: udev did not create the node"}, fix: []string{"udevadm trigger --subsystem-match=infiniband_verbs"}},
	{name: "no devices, no nodes", id: "uverbs-perms", verdict: NA,
		facts: with(rxe0, func(t *testing.T, f *Facts) { f.Devices = nil })},

	// ports
	{name: "rxe0 active", id: "ports", facts: rxe0, verdict: Pass, summary: []string{"rxe0 port 1 ACTIVE, LinkUp"}},
	{name: "veth0 down", id: "ports", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			p := &f.Devices[0].Ports[0]
			p.State, p.StateName, p.PhysState, p.PhysStateName, p.NetdevState = 1, "DOWN", 3, "Disabled", "down"
		}),
		summary:  []string{"rxe0 port 1 is DOWN (Disabled): its netdev veth0 is down"},
		fix:      []string{"ip link set veth0 up"},
		evidence: []string{"veth0=operstate down"}},
	{name: "mlx5: a second port down, an unreadable state", id: "ports", facts: mlx5, verdict: Fail,
		summary: []string{"irdma0 port 1: its state cannot be read", "mlx5_0 port 2 is DOWN (Disabled): no InfiniBand link"}},
	{name: "mlx5 without irdma0", id: "ports", verdict: Warn,
		facts:   with(mlx5, func(t *testing.T, f *Facts) { f.Devices = f.Devices[1:] }),
		summary: []string{"mlx5_0 port 2 is DOWN (Disabled)"}, fix: []string{"ibstat"}},
	{name: "IB port without SM", id: "ports", verdict: Fail,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.Devices = f.Devices[1:2]
			f.Devices[0].Ports = f.Devices[0].Ports[:1]
			f.Devices[0].Ports[0].State, f.Devices[0].Ports[0].StateName = 2, "INIT"
		}),
		summary: []string{"no subnet manager has configured the port"}, fix: []string{"opensm"}},
	{name: "no devices", id: "ports", verdict: NA, facts: with(rxe0, func(t *testing.T, f *Facts) { f.Devices = nil })},

	// gids
	{name: "rxe0", id: "gids", facts: rxe0, verdict: Pass, summary: []string{"rxe0 port 1: GID index 1 (RoCE v2, 10.0.0.1)"}},
	{name: "mlx5", id: "gids", facts: mlx5, verdict: Pass,
		summary:  []string{"mlx5_0 port 1: GID index 0", "mlx5_1 port 1: GID index 3 (RoCE v2, 192.168.1.2)"},
		evidence: []string{"not checked=irdma0 port 1 and mlx5_0 port 2: not ACTIVE"}},
	{name: "no IPv4 address", id: "gids", verdict: Warn,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Devices[0].Ports[0].GIDs = f.Devices[0].Ports[0].GIDs[:1]
			f.Devices[0].Ports[0].RecommendedGIDIndex = -1
		}),
		summary: []string{"no RoCE v2 GID for an IPv4 address"}, fix: []string{"ip addr add A.B.C.D/NN dev veth0"}},
	{name: "empty table", id: "gids", verdict: Fail,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Devices[0].Ports[0].GIDs = nil
			f.Devices[0].Ports[0].RecommendedGIDIndex = -1
		}),
		summary: []string{"rxe0 port 1 has an empty GID table"}},
	{name: "no active port", id: "gids", verdict: NA,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Devices[0].Ports[0].State, f.Devices[0].Ports[0].StateName = 1, "DOWN" }),
		summary: []string{"no port is ACTIVE"}},

	// memlock
	{name: "root in the lab", id: "memlock", facts: rxe0, verdict: Pass,
		summary: []string{"the limit (8 MiB) does not apply: this process has CAP_IPC_LOCK"}},
	{name: "user with 64 KiB", id: "memlock", facts: mlx5, verdict: Warn,
		summary: []string{"this process may pin only 64 KiB (RLIMIT_MEMLOCK) and lacks CAP_IPC_LOCK"},
		fix:     []string{"ulimit -l unlimited", "LimitMEMLOCK=infinity"}},
	{name: "user with 8 MiB and a hard limit", id: "memlock", verdict: Warn,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Host.Cred = user1000() }),
		summary: []string{"may pin only 8 MiB"}, fix: []string{"the hard limit (8 MiB) is too small too: add '* - memlock unlimited'"}},
	{name: "user whose hard limit allows more", id: "memlock", verdict: Warn,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Host.MemlockHard = sysfsmon.Limit{Value: 1 << 30}
		}),
		fix: []string{"ulimit -l 1048576 (KiB) in the shell that starts the program: the hard limit allows up to 1 GiB"}},
	{name: "unlimited", id: "memlock", verdict: Pass,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.Host.MemlockSoft = sysfsmon.Limit{Unlimited: true}
		}),
		summary: []string{"unlimited"}},
	{name: "large enough", id: "memlock", verdict: Pass,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.Host.MemlockSoft = sysfsmon.Limit{Value: 1 << 30}
		}),
		summary: []string{"1 GiB may be pinned, enough for the probe's 64 MiB"}},
	{name: "no host facts", id: "memlock", verdict: NA, facts: with(rxe0, func(t *testing.T, f *Facts) { f.Host = nil })},
	{name: "an RDMA process near its own limit", id: "memlock", verdict: Warn,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Owners = rdmaProcesses() }),
		summary: []string{"mrloop[900] has pinned 93% of its RLIMIT_MEMLOCK (64 KiB): its next ibv_reg_mr is likely to fail with ENOMEM"},
		fix:     []string{"prlimit --pid 900 --memlock=unlimited:unlimited"},
		evidence: []string{"mrloop[900] pins=60 KiB of 64 KiB (93%)", "ib_write_bw[1001] pins=2 MiB; CAP_IPC_LOCK: no limit applies",
			"ibv_rc_pingpong[812] pins=4 KiB of 8 MiB (0%)", "all_reduce_perf[1100] pins=256 MiB of unlimited"}},
	{name: "RDMA processes within their limits", id: "memlock", verdict: Pass,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Owners = rdmaProcesses()[1:] }),
		summary: []string{"the limit (8 MiB) does not apply"}},

	// growth
	{name: "not watched", id: "growth", facts: rxe0, verdict: NA, summary: []string{"--watch 2m"}},
	{name: "watched, nothing grew", id: "growth", verdict: Pass,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.Watched = 2 * time.Minute }),
		summary: []string{"no process's objects only grew in 2m0s"}},
	{name: "a process leaking MRs", id: "growth", verdict: Warn,
		facts: with(rxe0, func(t *testing.T, f *Facts) {
			f.Watched, f.Owners = 2*time.Minute, rdmaProcesses()
			f.Owners[0].Cgroup = sysfsmon.ParseCgroupPath("/system.slice/x.service")
			f.Growing = []inspect.Growth{{TGID: 900, Comm: "mrloop", Kind: "mr", From: 3, To: 27, PerMinute: 12}}
		}),
		summary:  []string{"mrloop[900] in x.service created 24 mrs in 2m0s and destroyed none (+12.0 a minute): a leak suspect"},
		evidence: []string{"mrloop[900] in x.service mrs=3 → 27, +12.0 a minute"},
		fix:      []string{"verbscope res mr pid PID"}},

	// mr-qp
	{name: "lab numbers", id: "mr-qp", facts: liveRxe0, verdict: Pass,
		summary:  []string{"rxe0: registered 64 MiB (lkey 0x2ba, rkey 0x2ba) and took RC QP 17 to INIT on port 1"},
		evidence: []string{"rxe0 ibv_reg_mr=64 MiB, LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ: lkey 0x2ba, rkey 0x2ba (517 ms)"}},
	{name: "memlock", id: "mr-qp", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Probes = []Probe{failedProbe("rxe0", "ibv_reg_mr", syscall.ENOMEM)}
		}),
		summary:  []string{"rxe0: registering 64 MiB failed with ENOMEM: pinning it exceeds RLIMIT_MEMLOCK (8 MiB) and this process lacks CAP_IPC_LOCK"},
		fix:      []string{"* - memlock unlimited", "LimitMEMLOCK=infinity"},
		evidence: []string{"rxe0 ibv_reg_mr=cannot allocate memory (ENOMEM)"}},
	{name: "permission", id: "mr-qp", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Probes = []Probe{failedProbe("rxe0", "ibv_open_device", syscall.EACCES)}
		}),
		summary: []string{"ibv_open_device failed with EACCES"}, fix: []string{"see uverbs-perms"}},
	{name: "open fails with ENOENT on a closed node", id: "mr-qp", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Host.Cred = user1000()
			f.Host.DevNodes[3].Mode = "c---------"
			f.Probes = []Probe{failedProbe("rxe0", "ibv_open_device", syscall.ENOENT)}
		}),
		summary: []string{"rxe0: ibv_open_device failed with ENOENT: /dev/infiniband/uverbs0 (c--------- uid 0 gid 0) is not read-write for uid 1000"},
		fix:     []string{"see uverbs-perms"}},
	{name: "out of QPs", id: "mr-qp", verdict: Fail,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Probes = []Probe{failedProbe("rxe0", "ibv_create_qp", syscall.ENOSPC)} }),
		summary: []string{"ibv_create_qp failed with ENOSPC: the device is out of that resource"}, fix: []string{"see limits and leaks"}},
	{name: "not supported", id: "mr-qp", verdict: Fail,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Probes = []Probe{failedProbe("rxe0", "ibv_create_qp", syscall.ENOSYS)} }),
		summary: []string{"rdma-core and the kernel driver do not agree"}},
	{name: "nothing to probe", id: "mr-qp", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Probes = nil
			f.Verbs.Devices = nil
			f.Verbs.ListErr = &verbs.Error{Op: "ibv_get_device_list", Err: verbs.ErrNoDevice}
		}),
		summary: []string{"nothing to register memory with: libibverbs lists no device"}},
	{name: "recorded tree", id: "mr-qp", facts: rxe0, verdict: NA, summary: []string{"recorded tree"}},
	{name: "--no-probe", id: "mr-qp", verdict: NA,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Probes, f.NoProbe = nil, "skipped (--no-probe)" }),
		summary: []string{"skipped (--no-probe)"}},

	// irqs
	{name: "rxe0 is soft", id: "irqs", facts: rxe0, verdict: NA,
		summary: []string{"rxe0 is a software device on veth0: it has no interrupts of its own"}},
	{name: "mlx5_0 alone is fine", id: "irqs", verdict: Pass,
		facts:    with(mlx5, func(t *testing.T, f *Facts) { f.IRQs.Devices = f.IRQs.Devices[1:2] }),
		summary:  []string{"mlx5_0: 4 IRQs"},
		evidence: []string{"mlx5_0=4 IRQs (4 msix), 4 vectors for 4 CPUs", "mlx5_0 IRQ 102=IR-PCI-MSIX-0000:3b:00.0 mlx5_comp1@pci:0000:3b:00.0, msix, effective CPUs 1, 2000 interrupts"}},
	{name: "mlx5_1 on CPU0, few vectors", id: "irqs", verdict: Warn,
		facts:   with(mlx5, func(t *testing.T, f *Facts) { f.IRQs.Devices = f.IRQs.Devices[2:] }),
		summary: []string{"all of mlx5_1's interrupts go to CPU0", "mlx5_1 has 2 completion vectors (IRQs found) for 4 CPUs, so CQs cannot spread"},
		fix:     []string{"irqbalance"}},
	{name: "num_comp_vectors from libibverbs", id: "irqs", verdict: Warn,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.IRQs.Devices = f.IRQs.Devices[1:2]
			f.Verbs = &VerbsFacts{Open: map[string]VerbsDevice{"mlx5_0": {NumCompVectors: 3}}}
		}),
		summary: []string{"mlx5_0 has 3 completion vectors (num_comp_vectors) for 4 CPUs"}},
	{name: "irdma0 on legacy INTx", id: "irqs", facts: mlx5, verdict: Fail,
		summary: []string{"irdma0 uses a legacy INTx line, not MSI-X"}, fix: []string{"lspci -vv -s 0000:5e:00.0", "pci=nomsi"},
		evidence: []string{"irdma0 interrupt mode=legacy INTx (IRQ 16)"}},
	{name: "a hardware device without IRQs", id: "irqs", verdict: Fail,
		facts: with(mlx5, func(t *testing.T, f *Facts) {
			f.IRQs.Devices = f.IRQs.Devices[2:]
			f.IRQs.Devices[0].IRQs, f.IRQs.Devices[0].NoIRQs = nil, "no MSI/MSI-X vectors"
		}),
		summary: []string{"mlx5_1 has no interrupts"}},
	{name: "unreadable /proc/interrupts", id: "irqs", verdict: Warn,
		facts:   with(rxe0, func(t *testing.T, f *Facts) { f.IRQs, f.IRQsErr = nil, syscall.EACCES }),
		summary: []string{"the interrupts could not be read"}},

	// leaks
	{name: "idle lab", id: "leaks", facts: liveRxe0, verdict: Pass,
		summary: []string{"no verbs object outlives its process (0 user objects"}},
	{name: "pingpong alive", id: "leaks", verdict: Pass,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			addProcess(f.Netlink, "rxe0", 232, "ibv_rc_pingpong", 1)
			f.Holders = []sysfsmon.FDHolder{{PID: 232, Comm: "ibv_rc_pingpong", FD: 3, Path: "/dev/infiniband/uverbs0"}}
		}),
		summary:  []string{"5 user objects, all of live processes"},
		evidence: []string{"/dev/infiniband/uverbs0=pid 232 (ibv_rc_pingpong) fd 3"}},
	{name: "zombie kept alive by a child", id: "leaks", facts: leakFacts(inspect.OwnerZombie, "doctor.test"), verdict: Fail,
		summary: []string{"rxe0: 1 QP (lqpn 17), 1 CQ, 1 MR, 1 PD and 1 context of pid 4321 (doctor.test), which has exited and is a zombie: they live on because pid 4330 (sleep) holds /dev/infiniband/uverbs0 as fd 3"},
		fix:     []string{"kill 4330 (sleep), or make it close fd 3", "close it in the child"},
		evidence: []string{"rxe0 objects of pid 4321=1 QP (lqpn 17)",
			"/dev/infiniband/uverbs0=pid 4330 (sleep) fd 3: owns no context on rxe0"}},
	{name: "reaped: no pid, a holder without a context", id: "leaks", facts: leakFacts(inspect.OwnerExited, ""), verdict: Warn,
		summary: []string{"of a task that has exited (the kernel no longer reports its pid): pid 4330 (sleep) holds /dev/infiniband/uverbs0 as fd 3 without a context of its own; if it inherited the descriptor, they are leaked"},
		fix:     []string{"if 4330 (sleep) inherited /dev/infiniband/uverbs0 (fd 3): kill it"}},
	{name: "pid gone, nobody holds the device", id: "leaks", verdict: Fail,
		facts:   with(leakFacts(inspect.OwnerGone, ""), func(t *testing.T, f *Facts) { f.Holders = nil }),
		summary: []string{"no process was found that holds the device open"},
		fix:     []string{"reloading its driver frees everything"}},
	{name: "pid gone", id: "leaks", facts: leakFacts(inspect.OwnerGone, ""), verdict: Fail,
		summary: []string{"of pid 4321, which no longer exists"}},
	{name: "no pid, no holder found as a user", id: "leaks", verdict: Warn,
		facts: with(leakFacts(inspect.OwnerExited, ""), func(t *testing.T, f *Facts) {
			f.Holders, f.HoldersUnreadable = nil, 12
		}),
		summary: []string{"so they probably belong to a live process whose creating thread ended"},
		fix:     []string{"run doctor as root to see every process that holds a /dev/infiniband descriptor (12 processes could not be read)"}},
	{name: "a thread of a live process", id: "leaks", verdict: Pass,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			addObjects(f.Netlink, ownedObj("rxe0", 240, 232, "worker", inspect.OwnerLive), 1)
		})},
	{name: "netlink failed", id: "leaks", verdict: Warn,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			f.Netlink, f.NetlinkErr = nil, fmt.Errorf("inspect: qp dump: %w", syscall.EPERM)
		}),
		summary: []string{"could not be dumped over netlink"}},
	{name: "no RDMA netlink", id: "leaks", verdict: NA,
		facts:   with(liveRxe0, func(t *testing.T, f *Facts) { f.Netlink, f.NetlinkErr = nil, inspect.ErrNoRDMA }),
		summary: []string{"the kernel has no RDMA netlink"}},
	{name: "recorded tree", id: "leaks", facts: rxe0, verdict: NA},

	// limits
	{name: "idle lab", id: "limits", facts: liveRxe0, verdict: Pass,
		summary:  []string{"every count is below 80.0% of its limit (highest: rxe0 QPs 1 of 1048560)"},
		evidence: []string{"rxe0 QPs=1 of 1048560 (<0.1%)", "rxe0 MRs=0 of 524287 (0.0%)"}},
	{name: "near max_qp", id: "limits", verdict: Warn,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			for n := uint32(1); n <= 4; n++ {
				addProcess(f.Netlink, "rxe0", 232, "ibv_rc_pingpong", n)
			}
			a := *f.Verbs.Open["rxe0"].Attr
			a.MaxQP = 6
			f.Verbs.Open["rxe0"] = VerbsDevice{Attr: &a}
		}),
		summary:  []string{"rxe0 uses 83.3% of its 6 QPs"},
		evidence: []string{"rxe0 QPs=5 of 6 (83.3%); most by pid 232 (ibv_rc_pingpong): 4"}},
	{name: "max_mr reached", id: "limits", verdict: Fail,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) {
			addProcess(f.Netlink, "rxe0", 232, "ibv_rc_pingpong", 1)
			a := *f.Verbs.Open["rxe0"].Attr
			a.MaxMR = 1
			f.Verbs.Open["rxe0"] = VerbsDevice{Attr: &a}
		}),
		summary: []string{"rxe0 has all its 1 MR in use (1): creating one more fails"}, fix: []string{"verbscope res qp"}},
	{name: "no limits known", id: "limits", verdict: NA,
		facts: with(liveRxe0, func(t *testing.T, f *Facts) { f.Verbs.Open = nil })},
}

// leakFacts is the lab's leak: a process made a context, PD, CQ, MR and QP
// on rxe0, passed its uverbs descriptor to `sleep` and exited; owner is
// what procfs says about it now (a zombie, gone; the zero value plays a
// reaped process whose pid netlink no longer sends).
func leakFacts(owner inspect.Owner, comm string) func(t *testing.T) *Facts {
	return func(t *testing.T) *Facts {
		f := liveRxe0(t)
		pid, tgid := uint32(4321), uint32(4321)
		switch owner {
		case inspect.OwnerExited:
			pid, tgid = 0, 0
		case inspect.OwnerGone:
			tgid = 0
		}
		addObjects(f.Netlink, ownedObj("rxe0", pid, tgid, comm, owner), 1)
		f.Holders = []sysfsmon.FDHolder{{PID: 4330, Comm: "sleep", FD: 3, Path: "/dev/infiniband/uverbs0"}}
		return f
	}
}

func TestChecks(t *testing.T) {
	reached := map[string]map[Verdict]bool{}
	for _, c := range checkCases {
		t.Run(c.id+"/"+c.name, func(t *testing.T) {
			r := runOne(t, c.facts(t), c.id)
			if reached[c.id] == nil {
				reached[c.id] = map[Verdict]bool{}
			}
			reached[c.id][r.Verdict] = true
			if r.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s; summary: %s", r.Verdict, c.verdict, r.Summary)
			}
			for _, s := range c.summary {
				if !strings.Contains(r.Summary, s) {
					t.Errorf("summary %q lacks %q", r.Summary, s)
				}
			}
			fixes := strings.Join(r.Fix, "\n")
			for _, s := range c.fix {
				if !strings.Contains(fixes, s) {
					t.Errorf("fixes lack %q:\n%s", s, fixes)
				}
			}
			for _, e := range c.evidence {
				what, value, _ := strings.Cut(e, "=")
				if !slices.ContainsFunc(r.Evidence, func(ev Evidence) bool { return ev.What == what && strings.Contains(ev.Value, value) }) {
					t.Errorf("no evidence %s containing %q in %+v", what, value, r.Evidence)
				}
			}
			if r.Verdict == Pass && len(r.Fix) > 0 {
				t.Errorf("a pass with fixes: %q", r.Fix)
			}
			if (r.Verdict == Warn || r.Verdict == Fail) && r.Summary == "" {
				t.Error("a warning or failure without a summary")
			}
			for _, ev := range r.Evidence {
				if ev.What == "" || ev.Source == "" {
					t.Errorf("evidence without a name or a source: %+v", ev)
				}
			}
		})
	}
	// Every check reaches each verdict it can give.
	can := map[string][]Verdict{
		"modules": {Pass, Warn, Fail, NA}, "devices": {Pass, Warn, Fail}, "rdma-core": {Pass, Warn, Fail, NA},
		"uverbs-perms": {Pass, Warn, Fail, NA}, "ports": {Pass, Warn, Fail, NA}, "gids": {Pass, Warn, Fail, NA},
		"memlock": {Pass, Warn, NA}, "mr-qp": {Pass, Fail, NA}, "irqs": {Pass, Warn, Fail, NA},
		"leaks": {Pass, Warn, Fail, NA}, "limits": {Pass, Warn, Fail, NA}, "growth": {Pass, Warn, NA},
	}
	for _, id := range checkIDs() {
		for _, v := range can[id] {
			if !reached[id][v] {
				t.Errorf("check %s never reached %s", id, v)
			}
		}
	}
}

func TestSelect(t *testing.T) {
	all, err := Select(nil)
	if err != nil || len(all) != len(Checks) {
		t.Fatalf("Select(nil) = %d checks, %v", len(all), err)
	}
	sel, err := Select([]string{"ports", "modules"})
	if err != nil || len(sel) != 2 || sel[0].ID != "modules" || sel[1].ID != "ports" {
		t.Errorf("Select(ports, modules) = %v, %v; want checklist order", sel, err)
	}
	if NeedsOf(sel) != needHost|needDevices {
		t.Errorf("NeedsOf(modules, ports) = %b", NeedsOf(sel))
	}
	if _, err := Select([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `no check "nope"; the checks are modules, devices,`) {
		t.Errorf("Select(nope): %v", err)
	}
}

// Gather on a recorded tree reads only what the checks need.
func TestGatherNeeds(t *testing.T) {
	fs, err := sysfsmon.NewFS(fixtures+"/rxe0/sys", fixtures+"/rxe0/proc")
	if err != nil {
		t.Fatal(err)
	}
	f := Gather(fs, false, Options{Needs: needDevices})
	if f.Host != nil || f.IRQs != nil || len(f.Devices) != 1 || f.Verbs != nil || f.Netlink != nil || f.MRSize != DefaultMRSize {
		t.Errorf("Gather(devices only): %+v", f)
	}
}

// rdmaProcesses are processes holding objects: one near its memlock
// limit, one exempt (CAP_IPC_LOCK), one well within, one unlimited, and
// one that exited (not judged).
func rdmaProcesses() []owners.Process {
	p := func(tgid int, comm string, pinned uint64, lim sysfsmon.Limit, ipcLock, gone bool) owners.Process {
		return owners.Process{ProcessOwner: sysfsmon.ProcessOwner{TGID: tgid, Comm: comm, MemlockSoft: lim, IPCLock: ipcLock}, Pinned: pinned, Gone: gone}
	}
	return []owners.Process{
		p(900, "mrloop", 60<<10, sysfsmon.Limit{Value: 64 << 10}, false, false),
		p(1001, "ib_write_bw", 2<<20, sysfsmon.Limit{Value: 1 << 20}, true, false),
		p(812, "ibv_rc_pingpong", 4<<10, sysfsmon.Limit{Value: 8 << 20}, false, false),
		p(1100, "all_reduce_perf", 256<<20, sysfsmon.Limit{Unlimited: true}, false, false),
		p(0, "", 1<<30, sysfsmon.Limit{Value: 1}, false, true),
	}
}
