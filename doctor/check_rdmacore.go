package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

// uverbsABI is the uverbs command ABI every kernel since 2.6.13 reports
// (IB_USER_VERBS_ABI_VERSION in include/uapi/rdma/ib_user_verbs.h).
const uverbsABI = 6

// checkRDMACore compares the userspace half (rdma-core's libibverbs and
// providers) with the kernel half (ib_uverbs and the drivers' uverbs
// ABIs).
func checkRDMACore(f *Facts) Result {
	r := newResult()
	h := f.Host
	if h == nil {
		return r.na("the host facts were not read")
	}
	r.note("kernel", h.KernelRelease, "/proc/sys/kernel/osrelease")
	switch c := h.RDMACore; {
	case c.Version == "":
		r.judge(Warn, "rdma-core", "not found", "/var/lib/dpkg/status, libibverbs.so.1.* in the library folders")
		r.problem(Warn, "could not tell which rdma-core is installed (no dpkg record of rdma-core or libibverbs1, no libibverbs.so.1.* file)")
		r.fix("install rdma-core's libraries and providers: apt install libibverbs1 ibverbs-providers rdma-core (Debian, Ubuntu), dnf install rdma-core libibverbs (RHEL, Fedora)")
	default:
		r.note("rdma-core", c.Version, c.Source+": "+c.Detail)
	}
	abiSrc := srcUverbs + "/abi_version"
	uverbsDevs := slices.ContainsFunc(f.Devices, func(d sysfsmon.Device) bool { return d.Uverbs != "" })
	switch {
	case h.UverbsABI == 0 && uverbsDevs:
		r.note("uverbs ABI", "unknown: abi_version could not be read", abiSrc)
	case h.UverbsABI == 0 && len(f.Devices) > 0:
		r.judge(Fail, "uverbs ABI", "none: ib_uverbs is not loaded", abiSrc)
		r.problem(Fail, "the kernel has RDMA devices but no uverbs interface (ib_uverbs not loaded): libibverbs cannot reach them")
		r.fix("modprobe ib_uverbs")
	case h.UverbsABI == 0:
		r.note("uverbs ABI", "none", abiSrc)
	case h.UverbsABI != uverbsABI:
		r.judge(Warn, "uverbs ABI", fmt.Sprint(h.UverbsABI), abiSrc)
		r.problem(Warn, "the kernel's uverbs ABI is %d, not %d: libibverbs refuses ABIs it does not know", h.UverbsABI, uverbsABI)
		r.fix("use an rdma-core release made for this kernel")
	default:
		r.judge(Pass, "uverbs ABI", fmt.Sprint(h.UverbsABI), abiSrc)
	}
	if len(f.Devices) == 0 {
		return r.na("there are no RDMA devices to compare against (rdma-core %s)", dash(h.RDMACore.Version))
	}
	var pairs []string
	for _, d := range f.Devices {
		if d.Uverbs == "" {
			if h.UverbsABI > 0 || uverbsDevs {
				r.judge(Fail, d.Name, "no uverbs device", srcUverbs+"/uverbs*/ibdev")
				r.problem(Fail, "%s has no uverbs device: its driver offers no userspace access", d.Name)
				r.fix("reload the device's driver after ib_uverbs (modprobe -r DRIVER; modprobe ib_uverbs; modprobe DRIVER), and check dmesg for its errors")
			}
			continue
		}
		v := d.Uverbs
		if abi, ok := h.DriverABIs[d.Uverbs]; ok {
			v += fmt.Sprintf(", driver ABI %d", abi)
		}
		r.judge(Pass, d.Name, v, srcUverbs+"/"+d.Uverbs+"/abi_version")
		pairs = append(pairs, d.Name+" on "+v)
	}
	// A device whose provider is configured and installed but which
	// libibverbs still skips: the provider does not accept it, usually
	// because it is older than the kernel driver's ABI.
	if v := f.Verbs; v != nil && f.Live {
		for _, d := range f.Devices {
			p := providerFor(d)
			if d.Uverbs == "" || v.listed(d.Name) || p == "" || !h.VerbsConf.HasDriver(p) || !h.VerbsConf.HasProvider(p) {
				continue
			}
			r.judge(Fail, d.Name, "skipped by libibverbs though the "+p+" provider is configured and installed", "ibv_get_device_list")
			r.problem(Fail, "libibverbs skips %s although its provider %s is installed: the provider probably does not speak the driver's ABI (%d)", d.Name, p, h.DriverABIs[d.Uverbs])
			r.fix("IBV_SHOW_WARNINGS=1 ibv_devices says why libibverbs skips a device; install an rdma-core at least as new as the kernel's driver")
		}
	}
	if r.worst == Pass {
		abi := "unknown"
		if h.UverbsABI > 0 {
			abi = fmt.Sprint(h.UverbsABI)
		}
		r.ok("kernel %s, rdma-core %s, uverbs ABI %s; %s", h.KernelRelease, h.RDMACore.Version, abi, strings.Join(pairs, "; "))
	}
	return r.done()
}
