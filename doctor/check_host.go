package doctor

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

const (
	srcLimits = "/proc/self/limits"
	srcStatus = "/proc/self/status"
	srcUverbs = "/sys/class/infiniband_verbs"
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
			if d.Uverbs == "" || v.Listed(d.Name) || p == "" || !h.VerbsConf.HasDriver(p) || !h.VerbsConf.HasProvider(p) {
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

// checkMemlock compares RLIMIT_MEMLOCK with what the probe registers:
// ibv_reg_mr pins pages and the kernel (ib_umem_get) refuses with ENOMEM
// beyond the soft limit, unless the process has CAP_IPC_LOCK.
func checkMemlock(f *Facts) Result {
	r := newResult()
	h := f.Host
	if h == nil {
		return r.na("the host facts were not read")
	}
	soft, hard := h.MemlockSoft, h.MemlockHard
	if soft == (sysfsmon.Limit{}) && hard == (sysfsmon.Limit{}) {
		r.judge(Warn, "RLIMIT_MEMLOCK", "unknown", srcLimits)
		r.problem(Warn, "could not read the locked-memory limit")
		return r.done()
	}
	r.judge(limitVerdict(h, f.MRSize), "RLIMIT_MEMLOCK", fmt.Sprintf("soft %s, hard %s", bytesOrUnlimited(soft), bytesOrUnlimited(hard)), srcLimits)
	if c := h.Cred; c != nil {
		r.note("this process", credText(c), srcStatus)
	}
	switch limitVerdict(h, f.MRSize) {
	case Pass:
		switch {
		case soft.Unlimited:
			r.ok("unlimited")
		case h.Cred != nil && h.Cred.HasCap(sysfsmon.CapIPCLock):
			r.ok("the limit (%s) does not apply: this process has CAP_IPC_LOCK", bytesOrUnlimited(soft))
		default:
			r.ok("%s may be pinned, enough for the probe's %s", bytesOrUnlimited(soft), sizeText(f.MRSize))
		}
	default:
		who := "this process"
		if h.Cred == nil {
			who = "this process (whose capabilities could not be read)"
		}
		r.problem(Warn, "%s may pin only %s (RLIMIT_MEMLOCK) and lacks CAP_IPC_LOCK: ibv_reg_mr of more fails with ENOMEM, and RDMA programs usually register far more", who, bytesOrUnlimited(soft))
		for _, fx := range memlockFixes(h, f.MRSize) {
			r.fix("%s", fx)
		}
	}
	return r.done()
}

// limitVerdict is Pass when the soft limit allows size bytes or does not
// apply, Warn otherwise.
func limitVerdict(h *sysfsmon.Host, size int) Verdict {
	if h.MemlockSoft.Unlimited || (h.Cred != nil && h.Cred.HasCap(sysfsmon.CapIPCLock)) || h.MemlockSoft.Value >= uint64(size) {
		return Pass
	}
	return Warn
}

// memlockFixes says how to let a process pin size bytes, given the hard
// limit: an unprivileged process may raise its soft limit up to the hard
// one, and only root raises the hard one.
func memlockFixes(h *sysfsmon.Host, size int) []string {
	var out []string
	switch hard := h.MemlockHard; {
	case hard.Unlimited:
		out = append(out, "ulimit -l unlimited in the shell that starts the program (the hard limit allows it)")
	case hard.Value >= uint64(size) && hard.Value > h.MemlockSoft.Value:
		out = append(out, fmt.Sprintf("ulimit -l %d (KiB) in the shell that starts the program: the hard limit allows up to %s", hard.Value/1024, bytesText(hard.Value)))
	default:
		out = append(out, fmt.Sprintf("the hard limit (%s) is too small too: add '* - memlock unlimited' to /etc/security/limits.conf (or a file in limits.d/) and log in again", bytesText(hard.Value)))
	}
	out = append(out, "systemd services: LimitMEMLOCK=infinity; containers: --ulimit memlock=-1:-1 (docker, podman); or give the program CAP_IPC_LOCK")
	return out
}

// checkPerms checks that this user may read and write each uverbs node
// (ibv_open_device opens it O_RDWR) and the rdma_cm node.
func checkPerms(f *Facts) Result {
	r := newResult()
	h := f.Host
	if h == nil {
		return r.na("the host facts were not read")
	}
	switch {
	case len(f.Devices) == 0 && len(h.DevNodes) == 0:
		return r.na("there are no RDMA devices and no /dev/infiniband")
	case !f.Live && len(h.DevNodes) == 0:
		return r.na("the recorded tree has no /dev/infiniband (--root)")
	}
	c := h.Cred
	if c == nil {
		r.judge(Warn, "this process", "unknown", srcStatus)
		r.problem(Warn, "could not read who this process is, so the modes were not checked")
	} else {
		r.note("this process", credText(c), srcStatus)
	}
	nodes := map[string]sysfsmon.DevNode{}
	for _, n := range h.DevNodes {
		nodes[n.Name] = n
	}
	var fine []string
	for _, d := range f.Devices {
		if d.Uverbs == "" {
			continue // the modules and rdma-core checks say why
		}
		path := "/dev/infiniband/" + d.Uverbs
		n, ok := nodes[d.Uverbs]
		if !ok {
			r.judge(Fail, path, "missing", "/dev/infiniband")
			r.problem(Fail, "%s has a uverbs device but no %s: udev did not create the node", d.Name, path)
			r.fix("udevadm trigger --subsystem-match=infiniband_verbs (udev creates the nodes from %s/uverbsN/dev)", srcUverbs)
			continue
		}
		a := nodeAccess(n, c)
		r.judge(a.verdict, path+" ("+d.Name+")", a.text, path)
		switch {
		case a.verdict == Pass:
			fine = append(fine, path+" ("+a.how+")")
		case !n.CharDev:
			r.problem(Fail, "%s is not a character device", path)
			r.fix("rm %s && udevadm trigger --subsystem-match=infiniband_verbs", path)
		case a.verdict == Fail:
			r.problem(Fail, "%s cannot open %s (%s): ibv_open_device fails with EACCES", who(c), path, nodeText(n))
			r.fix("chmod 0666 %s (rdma-core's udev rules make uverbs nodes read-write for everyone); or, to limit RDMA to a group: chgrp GROUP %s && chmod 0660 %s and add the user to GROUP", path, path, path)
			r.fix("make it last across reboots with a udev rule: KERNEL==\"uverbs*\", MODE=\"0666\" in /etc/udev/rules.d/")
		}
	}
	if n, ok := nodes["rdma_cm"]; ok {
		path := "/dev/infiniband/rdma_cm"
		a := nodeAccess(n, c)
		if a.verdict == Fail {
			a.verdict = Warn
			r.problem(Warn, "%s cannot open %s (%s): librdmacm programs fail; plain verbs work", who(c), path, nodeText(n))
			r.fix("chmod 0666 %s", path)
		}
		r.judge(a.verdict, path, a.text, path)
	}
	for _, n := range h.DevNodes {
		if strings.HasPrefix(n.Name, "umad") || strings.HasPrefix(n.Name, "issm") {
			r.note("/dev/infiniband/"+n.Name, nodeText(n)+" (MAD access; root only is usual)", "/dev/infiniband/"+n.Name)
		}
	}
	if r.worst == Pass {
		r.ok("%s may open %s", who(c), joinAnd(fine))
	}
	return r.done()
}

// uverbsDenied tells whether this process may not open the device's
// uverbs node (or the node is missing), and says why: libibverbs 44
// reports either as ENOENT from ibv_open_device, not EACCES (seen in the
// lab with a node at mode 000), so the errno alone does not tell.
func uverbsDenied(f *Facts, dev string) (string, bool) {
	h := f.Host
	if h == nil || h.Cred == nil {
		return "", false
	}
	for _, d := range f.Devices {
		if d.Name != dev || d.Uverbs == "" {
			continue
		}
		path := "/dev/infiniband/" + d.Uverbs
		for _, n := range h.DevNodes {
			if n.Name == d.Uverbs {
				if a := nodeAccess(n, h.Cred); a.verdict == Fail {
					return fmt.Sprintf("%s (%s) is not read-write for %s", path, nodeText(n), who(h.Cred)), true
				}
				return "", false
			}
		}
		return path + " is missing", true
	}
	return "", false
}

type access struct {
	verdict Verdict
	text    string
	how     string
}

// nodeAccess decides whether the credentials may open the node read-write,
// the way the kernel's generic_permission does: owner bits for the owner,
// group bits for a member, other bits for the rest; CAP_DAC_OVERRIDE
// skips the check.
func nodeAccess(n sysfsmon.DevNode, c *sysfsmon.Cred) access {
	base := nodeText(n)
	if !n.CharDev {
		return access{Fail, base + ": not a character device", ""}
	}
	if c == nil {
		return access{Warn, base, ""}
	}
	owner, group, other := modeRW(n.Mode)
	var rw bool
	var how string
	switch {
	case c.UID == n.UID:
		rw, how = owner, "owner"
	case c.InGroup(n.GID):
		rw, how = group, "group"
	default:
		rw, how = other, "others"
	}
	switch {
	case rw:
		return access{Pass, fmt.Sprintf("%s: read-write for %s (%s)", base, who(c), how), how}
	case c.HasCap(sysfsmon.CapDACOverride):
		return access{Pass, fmt.Sprintf("%s: not read-write for %s (%s), but CAP_DAC_OVERRIDE opens it anyway", base, who(c), how), "CAP_DAC_OVERRIDE"}
	}
	return access{Fail, fmt.Sprintf("%s: not read-write for %s (%s)", base, who(c), how), how}
}

// modeRW reads "crw-rw-rw-" into read-and-write flags for owner, group
// and others.
func modeRW(mode string) (owner, group, other bool) {
	if len(mode) != 10 {
		return false, false, false
	}
	rw := func(i int) bool { return mode[i] == 'r' && mode[i+1] == 'w' }
	return rw(1), rw(4), rw(7)
}

func nodeText(n sysfsmon.DevNode) string {
	return fmt.Sprintf("%s uid %d gid %d", n.Mode, n.UID, n.GID)
}

func who(c *sysfsmon.Cred) string {
	if c == nil {
		return "this process"
	}
	return fmt.Sprintf("uid %d", c.UID)
}

func credText(c *sysfsmon.Cred) string {
	s := fmt.Sprintf("uid %d, gid %d", c.UID, c.GID)
	if len(c.Groups) > 0 {
		g := make([]string, len(c.Groups))
		for i, x := range c.Groups {
			g[i] = fmt.Sprint(x)
		}
		s += ", groups " + strings.Join(g, ",")
	}
	var caps []string
	for _, cp := range []struct {
		n    int
		name string
	}{{sysfsmon.CapDACOverride, "CAP_DAC_OVERRIDE"}, {sysfsmon.CapNetAdmin, "CAP_NET_ADMIN"}, {sysfsmon.CapIPCLock, "CAP_IPC_LOCK"}} {
		if c.HasCap(cp.n) {
			caps = append(caps, cp.name)
		}
	}
	if len(caps) == 0 {
		return s + ", no capabilities that matter here"
	}
	return s + ", " + strings.Join(caps, ", ")
}

// sizeText prints a byte count in binary units: "64 MiB".
func sizeText(n int) string {
	return bytesText(uint64(n))
}

func bytesText(n uint64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

func bytesOrUnlimited(l sysfsmon.Limit) string {
	if l.Unlimited {
		return "unlimited"
	}
	return bytesText(l.Value)
}
