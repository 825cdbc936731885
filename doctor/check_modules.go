package doctor

import (
	"slices"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// ulps are modules that use ib_core without driving a device: the verbs
// core's own parts and the upper-layer protocols. Every other module that
// uses ib_core is a device driver (mlx5_ib, irdma, bnxt_re, rdma_rxe...).
var ulps = []string{
	"ib_uverbs", "ib_umad", "ib_cm", "iw_cm", "rdma_cm", "rdma_ucm", "ib_ipoib",
	"ib_iser", "ib_isert", "ib_srp", "ib_srpt", "rpcrdma", "svcrdma", "xprtrdma",
	"nvme_rdma", "nvmet_rdma", "rds_rdma", "smc", "ksmbd", "cifs", "rtrs_core",
	"rtrs_client", "rtrs_server", "rnbd_client", "rnbd_server", "ib_sa", "ib_mad",
}

const fixDriver = "load the driver of the device, which pulls in ib_core and ib_uverbs: modprobe mlx5_ib (NVIDIA ConnectX), irdma (Intel E810), bnxt_re (Broadcom), efa (AWS); for Soft-RoCE on an Ethernet interface: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev IFACE"

// checkModules looks for the modules of the checklist in /proc/modules. A
// module missing there may be built into the kernel; what it provides
// (devices, uverbs, the rdma_cm and umad nodes) tells.
func checkModules(f *Facts) Result {
	r := newResult()
	h := f.Host
	if h == nil {
		return r.na("the host facts were not read")
	}
	devNode := func(prefix string) bool {
		return slices.ContainsFunc(h.DevNodes, func(n sysfsmon.DevNode) bool { return strings.HasPrefix(n.Name, prefix) })
	}
	haveDevs := len(f.Devices) > 0
	if module(h, "ib_core") == nil && !haveDevs {
		// Without the core nothing else can load: one failure, one fix.
		r.judge(Fail, "ib_core", "not loaded", srcModules)
		r.problem(Fail, "no RDMA stack is loaded: no ib_core, hence no ib_uverbs, driver, rdma_cm or ib_umad")
		r.fix("%s", fixDriver)
		r.fix("then modprobe ib_uverbs rdma_ucm ib_umad, which drivers do not load themselves")
		return r.done()
	}
	c := &moduleCheck{r: r, h: h}
	c.want("ib_core", Fail, when(haveDevs, "/sys/class/infiniband has devices"),
		"the kernel has no RDMA core", fixDriver)
	c.want("ib_uverbs", Fail, when(h.UverbsABI > 0, "/sys/class/infiniband_verbs exists"),
		"no /dev/infiniband/uverbsN, so libibverbs reaches no device", "modprobe ib_uverbs")
	c.drivers(haveDevs)

	cmWhy := "no /dev/infiniband/rdma_cm, so programs that connect through librdmacm (rping, ucmatose, ib_write_bw -R, most MPI and storage stacks) fail; plain verbs work"
	cmNode := when(devNode("rdma_cm"), "/dev/infiniband/rdma_cm exists")
	if module(h, "rdma_cm") == nil && cmNode == "" {
		// rdma_ucm needs rdma_cm: one problem for both.
		r.judge(Warn, "rdma_cm", "not loaded", srcModules)
		c.want("rdma_ucm", Warn, "", "(nor rdma_cm): "+cmWhy, "modprobe rdma_ucm (it loads rdma_cm)")
	} else {
		c.want("rdma_cm", Warn, cmNode, cmWhy, "modprobe rdma_ucm (it loads rdma_cm)")
		c.want("rdma_ucm", Warn, cmNode, cmWhy, "modprobe rdma_ucm")
	}
	c.want("ib_umad", Warn, when(devNode("umad"), "/dev/infiniband/umad* exist"),
		"no /dev/infiniband/umadN, so tools that send management datagrams through libibumad (ibstat, perfquery, ibnetdiscover, and opensm, the subnet manager an InfiniBand fabric needs) cannot reach the ports; verbs work without it",
		"modprobe ib_umad")
	if r.worst == Pass {
		r.ok("%s", joinAnd(c.found)+" present")
	}
	return r.done()
}

// moduleCheck judges the checklist's modules one by one into r; found
// lists what is there, for the line that says all is well.
type moduleCheck struct {
	r     *result
	h     *sysfsmon.Host
	found []string
}

// want checks one module; builtin says what shows it is there anyway
// (empty: nothing), miss how bad its absence is, why what it breaks.
func (c *moduleCheck) want(name string, miss Verdict, builtin, why string, fixes ...string) {
	m := module(c.h, name)
	switch {
	case m != nil:
		v := "loaded"
		if len(m.UsedBy) > 0 {
			v += ", used by " + strings.Join(m.UsedBy, ",")
		}
		c.r.judge(Pass, name, v, srcModules)
		c.found = append(c.found, name)
	case builtin != "":
		c.r.judge(Pass, name, "not a module: built into the kernel ("+builtin+")", srcModules)
		c.found = append(c.found, name+" (built in)")
	default:
		c.r.judge(miss, name, "not loaded", srcModules)
		sep := ": "
		if strings.HasPrefix(why, "(") {
			sep = " "
		}
		c.r.problem(miss, "%s is not loaded%s%s", name, sep, why)
		for _, fx := range fixes {
			c.r.fix("%s", fx)
		}
	}
}

// drivers judges the device drivers: the modules using ib_core that are
// not upper-layer protocols.
func (c *moduleCheck) drivers(haveDevs bool) {
	var drivers []string
	if core := module(c.h, "ib_core"); core != nil {
		for _, u := range core.UsedBy {
			if !slices.Contains(ulps, u) {
				drivers = append(drivers, u)
			}
		}
	}
	slices.Sort(drivers)
	switch {
	case len(drivers) > 0:
		c.r.judge(Pass, "device driver", strings.Join(drivers, ", "), srcModules+" (modules using ib_core that are not upper-layer protocols)")
		c.found = append(c.found, "the driver "+strings.Join(drivers, ", "))
	case haveDevs:
		c.r.judge(Pass, "device driver", "none in /proc/modules, but devices exist: built into the kernel", srcModules)
	default:
		c.r.judge(Fail, "device driver", "none: no module drives an RDMA device", srcModules)
		c.r.problem(Fail, "no RDMA device driver is loaded")
		c.r.fix("%s", fixDriver)
	}
}

func module(h *sysfsmon.Host, name string) *sysfsmon.Module {
	for i := range h.Modules {
		if h.Modules[i].Name == name {
			return &h.Modules[i]
		}
	}
	return nil
}
