package doctor

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// checkProbe reads the probes: a device passes when every call worked.
// The fix of a failed call depends on its errno.
func checkProbe(f *Facts) Result {
	r := newResult()
	switch {
	case !f.Live:
		return r.na("the facts come from a recorded tree: nothing on this host to register memory with")
	case f.NoProbe != "":
		return r.na("%s", f.NoProbe)
	case len(f.Probes) == 0:
		why := "libibverbs lists no device"
		if f.Verbs != nil && f.Verbs.ListErr != nil {
			why += ": " + f.Verbs.ListErr.Error()
		}
		r.judge(Fail, "devices probed", "none", srcVerbsList)
		r.problem(Fail, "nothing to register memory with: %s", why)
		r.fix("see the devices check")
		return r.done()
	}
	var fine []string
	for i := range f.Probes {
		p := &f.Probes[i]
		for _, s := range p.Steps {
			what := p.Dev + " " + s.Call
			if s.Err != nil {
				r.judge(Fail, what, s.Detail+": "+s.Err.Error(), s.Call)
				continue
			}
			r.judge(Pass, what, s.Detail+" ("+tookText(s.Took)+")", s.Call)
		}
		if s := p.failed(); s != nil {
			probeProblem(r, f, p, s)
			continue
		}
		fine = append(fine, fmt.Sprintf("%s: registered %s (lkey %#x, rkey %#x) and took RC QP %d to %s on port %d",
			p.Dev, view.Bytes(p.MRSize).String(), p.LKey, p.RKey, p.QPN, p.QPState, p.Port))
	}
	if r.worst == Pass {
		r.ok("%s", joinAnd(fine))
	}
	return r.done()
}

// probeProblem explains a failed step by its call and errno.
func probeProblem(r *result, f *Facts, p *Probe, s *ProbeStep) {
	h := f.Host
	var en syscall.Errno
	errors.As(s.Err, &en)
	why, denied := uverbsDenied(f, p.Dev)
	switch {
	case s.Call == "ibv_open_device" && denied:
		r.problem(Fail, "%s: ibv_open_device failed with %s: %s", p.Dev, errnoText(s.Err), why)
		r.fix("see uverbs-perms")
	case s.Call == "ibv_reg_mr" && en == syscall.ENOMEM:
		limit := "the locked-memory limit"
		if h != nil {
			limit = "RLIMIT_MEMLOCK (" + bytesOrUnlimited(h.MemlockSoft) + ")"
		}
		r.problem(Fail, "%s: registering %s failed with ENOMEM: pinning it exceeds %s and this process lacks CAP_IPC_LOCK", p.Dev, view.Bytes(p.MRSize).String(), limit)
		if h != nil {
			for _, fx := range memlockFixes(h, p.MRSize) {
				r.fix("%s", fx)
			}
		}
	case en == syscall.EACCES || en == syscall.EPERM:
		r.problem(Fail, "%s: %s failed with %s: no permission on the device node", p.Dev, s.Call, rdma.ErrnoMeaning(en).Name)
		r.fix("see uverbs-perms")
	case en == syscall.ENOSYS || en == syscall.EOPNOTSUPP || en == syscall.EPROTONOSUPPORT:
		r.problem(Fail, "%s: %s is not supported (%s): rdma-core and the kernel driver do not agree", p.Dev, s.Call, rdma.ErrnoMeaning(en).Name)
		r.fix("install an rdma-core at least as new as the kernel (see rdma-core)")
	case en == syscall.ENOSPC || en == syscall.EAGAIN:
		r.problem(Fail, "%s: %s failed with %s: the device is out of that resource", p.Dev, s.Call, rdma.ErrnoMeaning(en).Name)
		r.fix("see limits and leaks: objects of other (or dead) processes may hold the device's resources")
	case en != 0:
		m := rdma.ErrnoMeaning(en)
		r.problem(Fail, "%s: %s failed with %s: %s", p.Dev, s.Call, m.Name, m.What)
		if m.Check != "" {
			r.fix("%s", m.Check)
		}
	default:
		r.problem(Fail, "%s: %s failed: %v", p.Dev, s.Call, s.Err)
	}
}
