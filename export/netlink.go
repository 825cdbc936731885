package export

import (
	"sort"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
)

// qpStates are every state of enum ib_qp_state, each a series of
// verbscope_qps even when no QP is in it.
var qpStates = rdma.QPStates

// kinds are the restrack object kinds of rdma-resource(8).
var kinds = rdma.ResourceKinds()

func qpGroupOf(q *inspect.QP) group {
	return group{dev: q.DevName, port: q.Port, typ: q.Type}
}

func qpIndex(s *inspect.Snapshot) map[inspect.Key]*inspect.QP {
	idx := make(map[inspect.Key]*inspect.QP, len(s.QPs))
	for i := range s.QPs {
		q := &s.QPs[i]
		idx[inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}] = q
	}
	return idx
}

// collectNetlink sends what RDMA netlink and the Tracker know: object
// counts, QPs by state, transitions, stuck QPs, objects of dead processes
// and usage against the limits.
func (c *Collector) collectNetlink(ch chan<- prometheus.Metric) {
	f := &c.frame
	var took time.Duration
	if f.Snapshot != nil {
		took = f.Snapshot.Took
	}
	err := f.Err
	if err == nil && f.Snapshot != nil && len(f.Snapshot.Warnings) > 0 {
		err = f.Snapshot.Warnings[0]
	}
	report(ch, collNetlink, err, took, c.frameAt)
	if f.Snapshot == nil {
		return
	}
	s := f.Snapshot
	for _, sum := range s.Summary {
		for _, k := range kinds {
			if n, ok := sum.Count(string(k)); ok {
				ch <- gauge(descResources, float64(n), sum.DevName, string(k))
			}
		}
	}
	c.collectQPs(ch)
	c.collectCauses(ch, s)
	dead := map[[2]string]int{}
	for _, d := range f.Update.Dead {
		dead[[2]string{d.Key.Dev, string(d.Key.Kind)}]++
	}
	for _, d := range s.Devices {
		for _, k := range kinds {
			ch <- gauge(descDead, float64(dead[[2]string{d.Name, string(k)}]), d.Name, string(k))
		}
	}
	for _, l := range f.Update.Limits {
		ch <- gauge(descUsage, l.Fraction, l.Dev, string(l.Kind))
	}
	if c.opts.TopProcesses > 0 {
		collectProcesses(ch, f.Update.Processes, c.opts.TopProcesses)
	}
	collectOwners(ch, c.owners)
}

// collectOwners sends the groups of processes (by where they live,
// owners.ByPlace, or Options.OwnersBy): objects by kind, pinned bytes, and the memlock ratio
// of the member nearest a limit that binds it.
func collectOwners(ch chan<- prometheus.Metric, gs []owners.Group) {
	for i := range gs {
		g := &gs[i]
		name := g.Key
		if name == owners.None {
			name = "none" // no cgroup read (exited, another pid namespace), or no container or pod
		}
		for _, k := range kinds {
			ch <- gauge(descOwnerObjects, float64(g.Objects[k]), name, string(k))
		}
		ch <- gauge(descOwnerPinned, float64(g.Pinned), name)
		growth := g.Growth()
		for _, k := range kinds {
			ch <- gauge(descOwnerGrowing, growth[k], name, string(k))
		}
		ch <- gauge(descMemlockRatio, g.AppliedRatio(), name)
	}
}

// collectQPs sends verbscope_qps, the transition counters and the stuck
// counts for every QP group ever seen.
func (c *Collector) collectQPs(ch chan<- prometheus.Metric) {
	for _, g := range sortedGroups(c.groups) {
		port, typ := strconv.FormatUint(uint64(g.port), 10), g.typ.String()
		for _, st := range qpStates {
			ch <- gauge(descQPs, float64(c.counts[stateKey{g, st}]), g.dev, port, typ, st.String())
			tr := inspect.Transition{Dev: g.dev, Port: g.port, Type: g.typ, To: st}
			ch <- counter(descTransitions, float64(c.transitions[tr]), g.dev, port, typ, st.String())
		}
		ch <- gauge(descStuck, float64(c.stuck[g]), g.dev, port, typ)
	}
}

func sortedGroups(m map[group]bool) []group {
	gs := make([]group, 0, len(m))
	for g := range m {
		gs = append(gs, g)
	}
	sort.Slice(gs, func(i, j int) bool {
		a, b := gs[i], gs[j]
		if a.dev != b.dev {
			return a.dev < b.dev
		}
		if a.port != b.port {
			return a.port < b.port
		}
		return a.typ.String() < b.typ.String()
	})
	return gs
}

// collectProcesses sends the objects of the top processes of each device
// by command name (never by pid: unbounded), the rest as "other".
func collectProcesses(ch chan<- prometheus.Metric, procs []inspect.ProcessUsage, top int) {
	type devComm struct{ dev, comm string }
	byComm := map[devComm]map[inspect.Kind]int{}
	var order []devComm
	for _, p := range procs {
		k := devComm{p.Dev, p.Comm}
		if k.comm == "" || k.comm == "other" {
			k.comm = "other"
		}
		if byComm[k] == nil {
			byComm[k] = map[inspect.Kind]int{}
			order = append(order, k)
		}
		for kind, n := range p.Counts {
			byComm[k][kind] += n
		}
	}
	total := func(k devComm) int {
		n := 0
		for _, v := range byComm[k] {
			n += v
		}
		return n
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].dev != order[j].dev {
			return order[i].dev < order[j].dev
		}
		return total(order[i]) > total(order[j])
	})
	out := map[devComm]map[inspect.Kind]int{}
	var outOrder []devComm
	kept := map[string]int{}
	for _, k := range order {
		dst := k
		if k.comm == "other" || kept[k.dev] >= top {
			dst.comm = "other"
		} else {
			kept[k.dev]++
		}
		if out[dst] == nil {
			out[dst] = map[inspect.Kind]int{}
			outOrder = append(outOrder, dst)
		}
		for kind, n := range byComm[k] {
			out[dst][kind] += n
		}
	}
	for _, k := range outOrder {
		for _, kind := range kinds {
			if n, ok := out[k][kind]; ok {
				ch <- gauge(descProcesses, float64(n), k.dev, k.comm, string(kind))
			}
		}
	}
}
