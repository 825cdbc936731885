package doctor

import (
	"fmt"
	"strconv"

	"github.com/verbscope/verbscope/owners"
)

// checkGrowth reports the processes whose objects of a kind only grew
// while doctor watched (--watch): a program that leaks MRs or QPs shows
// as counts that rise and never fall, long before it hits a limit.
func checkGrowth(f *Facts) Result {
	r := newResult()
	if f.Watched <= 0 {
		return r.na("doctor did not watch: --watch 2m observes every process's objects for two minutes")
	}
	if f.NetlinkErr != nil {
		return r.na("RDMA netlink could not be read: %v", f.NetlinkErr)
	}
	where := map[int]string{}
	for i := range f.Owners {
		where[f.Owners[i].TGID] = owners.KeyOf(&f.Owners[i], owners.ByPlace)
	}
	for _, g := range f.Growing {
		who := g.Comm + "[" + strconv.Itoa(int(g.TGID)) + "]"
		if w := where[int(g.TGID)]; w != "" && w != owners.None {
			who += " in " + w
		}
		r.judge(Warn, who+" "+string(g.Kind)+"s", fmt.Sprintf("%d → %d, +%.1f a minute", g.From, g.To, g.PerMinute), srcNetlinkRes)
		r.problem(Warn, "%s created %d %ss in %s and destroyed none (+%.1f a minute): a leak suspect",
			who, g.To-g.From, g.Kind, f.Watched, g.PerMinute)
	}
	if len(f.Growing) > 0 {
		r.fix("watch it: verbscope dash --view owners (b groups by unit, container or pod); its objects: verbscope res %s pid PID", f.Growing[0].Kind)
		r.fix("a program that registers memory or creates QPs per request must destroy them when done (ibv_dereg_mr, ibv_destroy_qp)")
		return r.done()
	}
	r.ok("no process's objects only grew in %s", f.Watched)
	return r.done()
}
