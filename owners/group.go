package owners

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// By is what processes are grouped by.
type By string

// The groupings, in the order the dashboard's key cycles them.
const (
	ByProcess   By = "process"
	ByUnit      By = "unit"
	ByContainer By = "container"
	ByPod       By = "pod"
)

// ByPlace groups by where a process lives: its container, else its
// systemd unit or cgroup path (Where). The exporter's labels use it: a
// name an operator knows, bounded, never a pid.
const ByPlace By = "place"

// Bys lists the groupings in cycling order.
func Bys() []By { return []By{ByProcess, ByUnit, ByContainer, ByPod} }

// ParseBy reads a grouping word, one of Bys or ByHost; "" is ByProcess.
func ParseBy(s string) (By, error) {
	if s == "" {
		return ByProcess, nil
	}
	for _, b := range append(Bys(), ByHost) {
		if string(b) == s {
			return b, nil
		}
	}
	return "", fmt.Errorf("owners: group by %q: want process, unit, container, pod or host", s)
}

// Next is the grouping after b, wrapping around.
func (b By) Next() By {
	bs := Bys()
	return bs[(slices.Index(bs, b)+1)%len(bs)]
}

// None is the key of the processes a grouping does not apply to: no
// container, no pod, no cgroup read.
const None = "-"

// KeyOf is p's group under b: the process's TGID; its systemd unit, or
// its raw cgroup path outside systemd's tree; its container as
// "runtime:short-id"; its pod's UID. A unit or container of a user's
// systemd manager is named under it ("user@1000.service/app.service",
// "user@1000.service/podman:3f4e5d6c7b8a"): the user chose that name,
// and it must not pass for, or merge with, the system's unit or
// container of the same name. None when the cgroup says nothing of it.
// The names are advisory (sysfsmon.Cgroup): where a process sits, not
// who it is; the rows show each member's uid beside them.
func KeyOf(p *Process, b By) string {
	c := p.Cgroup
	switch b {
	case ByUnit:
		switch {
		case c.Unit != "" && c.UserManager != "" && c.Unit != c.UserManager:
			return c.UserManager + "/" + c.Unit
		case c.Unit != "":
			return c.Unit
		case c.Path != "":
			return c.Path
		}
	case ByContainer:
		if c.ContainerID != "" {
			rt := c.Runtime
			if rt == "" {
				rt = "container"
			}
			if c.UserManager != "" {
				return c.UserManager + "/" + rt + ":" + c.ShortID()
			}
			return rt + ":" + c.ShortID()
		}
	case ByPod:
		if c.PodUID != "" {
			return c.PodUID
		}
	case ByPlace:
		if k := KeyOf(p, ByContainer); k != None {
			return k
		}
		return KeyOf(p, ByUnit)
	case ByHost:
		return hostKey
	default:
		return strconv.Itoa(p.TGID)
	}
	return None
}

// Group is the processes that share a key, with their objects summed.
type Group struct {
	By  By     `json:"by"`
	Key string `json:"key"`
	// Processes are the members, by TGID.
	Processes []Process `json:"processes"`
	// Objects, QPStates, Pinned and VmPin are the members' sums.
	Objects  map[inspect.Kind]int `json:"objects"`
	QPStates map[rdma.QPState]int `json:"-"`
	Pinned   uint64               `json:"pinned_bytes"`
	VmPin    uint64               `json:"vm_pin"`
	// Worst is the index in Processes of the member nearest its
	// RLIMIT_MEMLOCK (the limit is per process, so a group's is its
	// worst member's); -1 for a group of gone processes only.
	Worst int `json:"-"`
}

// total is the group's object count.
func (g *Group) total() int {
	n := 0
	for _, v := range g.Objects {
		n += v
	}
	return n
}

// Memlock is the worst member's soft RLIMIT_MEMLOCK and the share of it
// that member pins.
func (g *Group) Memlock() (sysfsmon.Limit, float64) {
	if g.Worst < 0 {
		return sysfsmon.Limit{}, 0
	}
	p := &g.Processes[g.Worst]
	return p.MemlockSoft, p.MemlockRatio()
}

// Growth sums the slopes (objects a minute) of the members' kinds that
// grow; empty when none does.
func (g *Group) Growth() map[inspect.Kind]float64 {
	var out map[inspect.Kind]float64
	for _, p := range g.Processes {
		for _, gr := range p.Growing {
			if out == nil {
				out = map[inspect.Kind]float64{}
			}
			out[gr.Kind] += gr.PerMinute
		}
	}
	return out
}

// AppliedRatio is the worst member's appliedRatio; 0 for a
// group of gone processes.
func (g *Group) AppliedRatio() float64 {
	if g.Worst < 0 {
		return 0
	}
	return g.Processes[g.Worst].appliedRatio()
}

// memlockAlert reports whether a member pins more than alertRatio of
// its limit.
func (g *Group) memlockAlert() bool {
	for i := range g.Processes {
		if g.Processes[i].MemlockAlert() {
			return true
		}
	}
	return false
}

// Groups folds processes by b, most objects first (then by key).
func Groups(ps []Process, b By) []Group {
	idx := map[string]int{}
	var out []Group
	for _, p := range ps {
		k := KeyOf(&p, b)
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Group{By: b, Key: k, Objects: map[inspect.Kind]int{}, QPStates: map[rdma.QPState]int{}, Worst: -1})
		}
		out[i].add(p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, z := out[i].total(), out[j].total(); a != z {
			return a > z
		}
		if b == ByProcess {
			return out[i].Processes[0].TGID < out[j].Processes[0].TGID
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// add makes p a member.
func (g *Group) add(p Process) {
	g.Processes = append(g.Processes, p)
	for k, n := range p.Objects {
		g.Objects[k] += n
	}
	for s, n := range p.QPStates {
		g.QPStates[s] += n
	}
	g.Pinned += p.Pinned
	g.VmPin += p.VmPin
	if !p.Gone && (g.Worst < 0 || worse(&p, &g.Processes[g.Worst])) {
		g.Worst = len(g.Processes) - 1
	}
}

// worse tells the member nearer a memlock limit that applies to it; a
// limited process is worse than an unlimited one (or one with
// CAP_IPC_LOCK), which the ratio alone would not say.
func worse(a, b *Process) bool {
	if ra, rb := a.appliedRatio(), b.appliedRatio(); ra != rb {
		return ra > rb
	}
	return a.limited() && !b.limited()
}

// limited reports whether RLIMIT_MEMLOCK bounds what the process pins.
func (p *Process) limited() bool { return !p.MemlockSoft.Unlimited && !p.IPCLock }

// appliedRatio is MemlockRatio where the limit binds the process, and 0
// where it does not (unlimited, or CAP_IPC_LOCK): what an alert compares.
func (p *Process) appliedRatio() float64 {
	if !p.limited() {
		return 0
	}
	return p.MemlockRatio()
}

// kindsShown are the kinds a group's row counts, in
// `rdma resource show`'s order.
var kindsShown = rdma.ResourceKinds()

// statesShown lists the QP states of a group's QPs, in the state
// machine's order.
func statesShown(m map[rdma.QPState]int) []rdma.QPState {
	return slices.Sorted(maps.Keys(m))
}

// other is the key of the groups Top folds together.
const other = "other"

// Top keeps the n groups with the most objects (gs comes from Groups,
// most first) and folds the rest, with any group already named "other",
// into one group "other": a bounded set of label values for an exporter.
func Top(gs []Group, n int) []Group {
	var out []Group
	var rest *Group
	for i := range gs {
		g := gs[i]
		if len(out) < n && g.Key != other {
			out = append(out, g)
			continue
		}
		if rest == nil {
			rest = &Group{By: g.By, Key: other, Objects: map[inspect.Kind]int{}, QPStates: map[rdma.QPState]int{}, Worst: -1}
		}
		for _, p := range g.Processes {
			rest.add(p)
		}
	}
	if rest != nil {
		out = append(out, *rest)
	}
	return out
}
