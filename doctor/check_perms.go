package doctor

import (
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/sysfsmon"
)

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
