package doctor

import (
	"fmt"

	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/view"
)

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
		checkProcMemlock(r, f.Owners)
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
			r.ok("%s may be pinned, enough for the probe's %s", bytesOrUnlimited(soft), view.Bytes(f.MRSize).String())
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
	checkProcMemlock(r, f.Owners)
	return r.done()
}

// checkProcMemlock looks at every process holding RDMA objects: the bytes
// its MRs pin against its own RLIMIT_MEMLOCK. Past 80% (owners' alertRatio) its
// next ibv_reg_mr is likely to fail with ENOMEM.
func checkProcMemlock(r *result, ps []owners.Process) {
	for i := range ps {
		p := &ps[i]
		if p.Gone {
			continue
		}
		who := fmt.Sprintf("%s[%d] pins", p.Comm, p.TGID)
		src := fmt.Sprintf("/proc/%d/limits, netlink RES_MR_GET", p.TGID)
		switch {
		case p.IPCLock:
			r.note(who, fmt.Sprintf("%s; CAP_IPC_LOCK: no limit applies", view.Bytes(p.Pinned).String()), src)
		case p.MemlockSoft.Unlimited:
			r.note(who, fmt.Sprintf("%s of unlimited", view.Bytes(p.Pinned).String()), src)
		case p.MemlockAlert():
			r.judge(Warn, who, fmt.Sprintf("%s of %s (%d%%)", view.Bytes(p.Pinned).String(), view.Bytes(p.MemlockSoft.Value).String(), int(p.MemlockRatio()*100)), src)
			r.problem(Warn, "%s[%d] has pinned %d%% of its RLIMIT_MEMLOCK (%s): its next ibv_reg_mr is likely to fail with ENOMEM",
				p.Comm, p.TGID, int(p.MemlockRatio()*100), view.Bytes(p.MemlockSoft.Value).String())
			r.fix("raise the limit of a running process: prlimit --pid %d --memlock=unlimited:unlimited (as root); for the next start, LimitMEMLOCK=infinity in its unit or --ulimit memlock=-1:-1 for its container", p.TGID)
		default:
			r.note(who, fmt.Sprintf("%s of %s (%d%%)", view.Bytes(p.Pinned).String(), view.Bytes(p.MemlockSoft.Value).String(), int(p.MemlockRatio()*100)), src)
		}
	}
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
		out = append(out, fmt.Sprintf("ulimit -l %d (KiB) in the shell that starts the program: the hard limit allows up to %s", hard.Value/1024, view.Bytes(hard.Value).String()))
	default:
		out = append(out, fmt.Sprintf("the hard limit (%s) is too small too: add '* - memlock unlimited' to /etc/security/limits.conf (or a file in limits.d/) and log in again", view.Bytes(hard.Value).String()))
	}
	out = append(out, "systemd services: LimitMEMLOCK=infinity; containers: --ulimit memlock=-1:-1 (docker, podman); or give the program CAP_IPC_LOCK")
	return out
}
