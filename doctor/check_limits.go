package doctor

import (
	"fmt"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// limitKinds are the kinds ibv_query_device gives limits for.
var limitKinds = map[inspect.Kind]string{rdma.KindQP: "max_qp", rdma.KindCQ: "max_cq", rdma.KindMR: "max_mr", rdma.KindPD: "max_pd", rdma.KindSRQ: "max_srq"}

// limitWarn is the share of a limit at which the check warns.
const limitWarn = 0.8

// checkLimits counts each device's objects (of all processes and the
// kernel) against the limits ibv_query_device reports: at the limit,
// creating one more fails (ENOMEM or ENOSPC, by driver).
func checkLimits(f *Facts) Result {
	r := newResult()
	if res, ok := withoutNetlink(f, r, "netlink and libibverbs describe this host, not the tree"); ok {
		return res
	}
	if f.Netlink == nil || f.Verbs == nil {
		return r.na("netlink or libibverbs was not asked")
	}
	limits := map[string]inspect.Limits{}
	for dev, o := range f.Verbs.Open {
		if a := o.Attr; a != nil {
			limits[dev] = inspect.Limits{MaxQP: uint64(a.MaxQP), MaxCQ: uint64(a.MaxCQ), MaxMR: uint64(a.MaxMR), MaxPD: uint64(a.MaxPD), MaxSRQ: uint64(a.MaxSRQ)}
		}
	}
	if len(limits) == 0 {
		return r.na("no device limits: libibverbs queried no device")
	}
	var highest inspect.LimitUsage
	for _, l := range inspect.Usage(f.Netlink, limits, limitWarn) {
		v := fmt.Sprintf("%d of %d (%s)", l.Count, l.Limit, pct(l.Fraction))
		if l.Top.PID != 0 {
			v += fmt.Sprintf("; most by pid %d (%s): %d", l.Top.PID, l.Top.Comm, l.Top.Counts[l.Kind])
		}
		what := l.Dev + " " + l.Kind.Short() + "s"
		src := srcNetlinkRes + ", ibv_query_device " + limitKinds[l.Kind]
		switch {
		case l.Count >= l.Limit:
			r.judge(Fail, what, v, src)
			r.problem(Fail, "%s has all its %s in use (%d): creating one more fails", l.Dev, plural(int(l.Limit), l.Kind.Short()), l.Count)
		case l.Over:
			r.judge(Warn, what, v, src)
			r.problem(Warn, "%s uses %s of its %s", l.Dev, pct(l.Fraction), plural(int(l.Limit), l.Kind.Short()))
		default:
			r.judge(Pass, what, v, src)
		}
		if l.Fraction >= highest.Fraction {
			highest = l
		}
	}
	if r.worst == Pass {
		r.ok("every count is below %s of its limit (highest: %s %ss %d of %d)", pct(limitWarn), highest.Dev, highest.Kind.Short(), highest.Count, highest.Limit)
	} else {
		r.fix("verbscope res qp (or cq, mr...) shows which process holds them; a count that keeps growing is a program that never destroys its objects")
		r.fix("objects of dead processes count too: see leaks")
	}
	return r.done()
}
