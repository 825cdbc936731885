package doctor

import (
	"fmt"
	"strings"
)

// Where evidence comes from, as the output names it.
const (
	srcLimits      = "/proc/self/limits"
	srcStatus      = "/proc/self/status"
	srcUverbs      = "/sys/class/infiniband_verbs"
	srcModules     = "/proc/modules"
	srcClassIB     = "/sys/class/infiniband"
	srcNetlinkDevs = "netlink RDMA_NLDEV_CMD_GET (rdma dev)"
	srcVerbsList   = "ibv_get_device_list"
	srcNetlinkRes  = "netlink RES_*_GET (rdma resource show)"
)

// Needs says which facts a check reads, so Gather collects only those
// (--only modules does not register memory).
type Needs uint

// The parts of Facts.
const (
	needHost    Needs = 1 << iota // Host: modules, versions, /dev/infiniband, memlock, credentials
	needDevices                   // Devices: sysfs devices, ports, GIDs
	needIRQs                      // IRQs: interrupts of each device
	needNetlink                   // Netlink: every verbs object of every process
	needVerbs                     // Verbs: libibverbs' device list, opened and queried
	needProbe                     // Probes: a real MR and QP on each device
	needProcs                     // Holders: fds on /dev/infiniband (the owners of netlink objects come with the dump)
	needOwners                    // Owners: each RDMA process's pinned bytes, cgroup and memlock limit
	needGrowth                    // Growing: every process's objects watched over time (Options.Watch)
)

// Check is one item of the checklist.
type Check struct {
	ID    string
	Title string
	// About says in one line what the check looks at, for --help.
	About string
	Needs Needs
	run   func(f *Facts) Result
}

// Checks is the checklist in the order an engineer works through it:
// the kernel, the devices and how userspace reaches them, the ports,
// then whether verbs really work, then what other processes left behind.
var Checks = []Check{
	{ID: "modules", Title: "RDMA kernel modules", Needs: needHost | needDevices,
		About: "ib_core, ib_uverbs, a device driver (or rdma_rxe), rdma_cm/rdma_ucm and ib_umad are loaded",
		run:   checkModules},
	{ID: "devices", Title: "Devices seen by the kernel and by libibverbs", Needs: needHost | needDevices | needNetlink | needVerbs,
		About: "every kernel device (sysfs, netlink) is listed and opened by libibverbs: a missing provider (/etc/libibverbs.d) hides it",
		run:   checkDevices},
	{ID: "rdma-core", Title: "rdma-core against the kernel", Needs: needHost | needDevices | needVerbs,
		About: "kernel and rdma-core versions, the uverbs ABI, a uverbs device for every RDMA device",
		run:   checkRDMACore},
	{ID: "uverbs-perms", Title: "Permissions of /dev/infiniband", Needs: needHost | needDevices,
		About: "this user may read and write each /dev/infiniband/uverbsN (and rdma_cm)",
		run:   checkPerms},
	{ID: "ports", Title: "Ports ACTIVE with the link up", Needs: needDevices,
		About: "every port is ACTIVE and LinkUp; a device with no active port fails",
		run:   checkPorts},
	{ID: "gids", Title: "GID tables", Needs: needDevices,
		About: "active ports have GIDs; RoCE ports have a RoCE v2 GID of an IPv4 address",
		run:   checkGIDs},
	{ID: "memlock", Title: "Locked-memory limit (RLIMIT_MEMLOCK)", Needs: needHost | needOwners,
		About: "ibv_reg_mr may pin enough memory: the limit is large, or this process is exempt (CAP_IPC_LOCK); no RDMA process has pinned more than 80% of its own limit",
		run:   checkMemlock},
	{ID: "mr-qp", Title: "Memory registration and QP creation", Needs: needHost | needVerbs | needProbe,
		About: "a real ibv_reg_mr (64 MiB by default) and an RC QP taken to INIT succeed on every device",
		run:   checkProbe},
	{ID: "irqs", Title: "Interrupts allocated and spread over CPUs", Needs: needHost | needIRQs | needVerbs,
		About: "hardware devices have MSI-X vectors (not legacy INTx), not all on CPU0, about one per CPU",
		run:   checkIRQs},
	{ID: "leaks", Title: "Verbs objects of dead processes", Needs: needHost | needDevices | needNetlink | needProcs,
		About: "no QP, CQ, MR, PD or context outlives its process (an inherited uverbs descriptor keeps them)",
		run:   checkLeaks},
	{ID: "limits", Title: "Object counts against device limits", Needs: needNetlink | needVerbs,
		About: "QPs, CQs, MRs, PDs and SRQs in use (all processes) stay below 80% of max_qp, max_cq, ... (ENOSPC when exhausted)",
		run:   checkLimits},
	{ID: "growth", Title: "Objects that only grow", Needs: needNetlink | needOwners | needGrowth,
		About: "with --watch D: no process's QPs, CQs, MRs, ... only grew while doctor watched (a leak suspect, with its slope)",
		run:   checkGrowth},
}

// checkIDs lists the check ids in order.
func checkIDs() []string {
	ids := make([]string, len(Checks))
	for i, c := range Checks {
		ids[i] = c.ID
	}
	return ids
}

// Select returns the checks with the given ids, in checklist order; no
// ids selects all of them.
func Select(ids []string) ([]Check, error) {
	if len(ids) == 0 {
		return Checks, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		found := false
		for _, c := range Checks {
			if c.ID == id {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("doctor: no check %q; the checks are %s", id, strings.Join(checkIDs(), ", "))
		}
		want[id] = true
	}
	var out []Check
	for _, c := range Checks {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out, nil
}

// NeedsOf is what the checks need together.
func NeedsOf(checks []Check) Needs {
	var n Needs
	for _, c := range checks {
		n |= c.Needs
	}
	return n
}

// Report is the outcome of a doctor run.
type Report struct {
	Host    HostLine `json:"host"`
	Checks  []Result `json:"checks"`
	Summary Summary  `json:"summary"`
}

// HostLine says which machine the report is about.
type HostLine struct {
	Kernel         string `json:"kernel_release"`
	RDMACore       string `json:"rdma_core"`
	RDMACoreSource string `json:"rdma_core_source"`
	CPUs           int    `json:"cpus"`
	UID            *int   `json:"uid"`
	Live           bool   `json:"live"`
}

// Summary counts the verdicts and names the checks that failed or warned.
type Summary struct {
	Pass   int      `json:"pass"`
	Warn   int      `json:"warn"`
	Fail   int      `json:"fail"`
	NA     int      `json:"na"`
	Failed []string `json:"failed"`
	Warned []string `json:"warned"`
}

// OK reports whether no check failed (warnings are fine).
func (r *Report) OK() bool { return r.Summary.Fail == 0 }

// Run runs the checks over the facts. Checks never fail to run: what they
// cannot tell becomes an n/a or a warning in their result.
func Run(f *Facts, checks []Check) *Report {
	r := &Report{Host: HostLine{Live: f.Live}}
	if h := f.Host; h != nil {
		r.Host.Kernel, r.Host.RDMACore, r.Host.RDMACoreSource, r.Host.CPUs = h.KernelRelease, h.RDMACore.Version, h.RDMACore.Source, h.CPUs
		if h.Cred != nil {
			uid := h.Cred.UID
			r.Host.UID = &uid
		}
	}
	for _, c := range checks {
		res := c.run(f)
		res.ID, res.Title = c.ID, c.Title
		r.Checks = append(r.Checks, res)
		switch res.Verdict {
		case Pass:
			r.Summary.Pass++
		case Warn:
			r.Summary.Warn++
			r.Summary.Warned = append(r.Summary.Warned, c.ID)
		case Fail:
			r.Summary.Fail++
			r.Summary.Failed = append(r.Summary.Failed, c.ID)
		default:
			r.Summary.NA++
		}
	}
	return r
}
