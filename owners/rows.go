package owners

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/view"
)

// Kind is the view kind of owner rows: their filter words are registered
// under it.
const Kind = "owners"

func init() {
	word := func(n string) view.Key { return view.Key{Name: n, Match: view.MatchSubstring} }
	num := func(n string) view.Key { return view.Key{Name: n, Match: view.MatchNumber} }
	view.Register(view.Schema{Kind: Kind, Keys: []view.Key{
		num("pid"), word("comm"), word("user"), word("unit"), word("container"), word("pod"), word("cgroup"),
		num("qp"), num("cq"), num("mr"), num("pd"), num("pinned"), num("vmpin"), num("memlock-used"),
		{Name: "flags", Match: view.MatchSubstring, Values: []string{FlagMemlock, FlagGrowing, FlagGone}},
	}})
}

// Flags a row may carry.
const (
	// FlagMemlock: a member pins more than 80% of its
	// RLIMIT_MEMLOCK.
	FlagMemlock = "memlock"
	// FlagGone: a member has exited, its objects kept alive by another
	// process's descriptor, or leaked.
	FlagGone = "gone"
	// FlagGrowing: a member's objects of a kind only grew over the
	// Tracker's window (inspect.Growth): a leak suspect.
	FlagGrowing = "growing"
)

// Flags lists what needs a look in the group.
func (g *Group) Flags() []string {
	var out []string
	if g.memlockAlert() {
		out = append(out, FlagMemlock)
	}
	if len(g.Growth()) > 0 {
		out = append(out, FlagGrowing)
	}
	if slices.ContainsFunc(g.Processes, func(p Process) bool { return p.Gone }) {
		out = append(out, FlagGone)
	}
	return out
}

// growthText is the kinds that grow with their slopes, "mr:+6.0/min", or
// None.
func (g *Group) growthText() string {
	gr := g.Growth()
	var parts []string
	for _, k := range kindsShown {
		if v, ok := gr[k]; ok {
			parts = append(parts, string(k)+":+"+strconv.FormatFloat(v, 'f', 1, 64)+"/min")
		}
	}
	return orNone(strings.Join(parts, ","))
}

// Row is the group as `verbscope res owners` prints it: the key under
// the grouping's name, who (pids, comm, user, and a process's unit,
// container and pod), the object counts, pinned bytes (the MRs', and
// the kernel's VmPin) against the memlock limit, and the flags. -j's keys are the same; counts and bytes
// are numbers, the ratio a fraction.
func (g *Group) Row() view.Row {
	r := view.Row{view.IDField(string(g.By) + ":" + g.Key)}
	var pids []string
	for _, p := range g.Processes {
		pids = append(pids, strconv.Itoa(p.TGID))
	}
	if g.By == ByProcess {
		p := &g.Processes[0]
		r = append(r, num("pid", uint64(p.TGID)))
	} else {
		r = append(r, str(string(g.By), g.Key),
			view.Field{Key: "pids", Text: strings.Join(pids, ","), Value: pids},
			view.Field{Key: "pid", Text: strings.Join(pids, ","), Value: pids, NoText: true, NoJSON: true})
	}
	// The uid beside the name: a group is named by its cgroup, which
	// says where its members sit, not who they are.
	r = append(r, str("comm", distinct(g, func(p *Process) string { return p.Comm })),
		view.Field{Key: "user", Text: orNone(distinct(g, userText)), Value: distinct(g, func(p *Process) string { return p.User })})
	if g.By == ByProcess {
		p := &g.Processes[0]
		c := p.Cgroup
		r = append(r, str("unit", KeyOf(p, ByUnit)), str("container", KeyOf(p, ByContainer)), str("pod", KeyOf(p, ByPod)),
			view.Field{Key: "cgroup", Text: orNone(c.Path), Value: c.Path, NoText: true},
			view.Field{Key: "cmdline", Text: p.Cmdline, Value: p.Cmdline, NoText: true})
	}
	for _, k := range kindsShown {
		r = append(r, num(string(k), uint64(g.Objects[k])))
	}
	stateJSON := map[string]int{}
	for s, n := range g.QPStates {
		stateJSON[s.IPRoute2()] = n
	}
	r = append(r, view.Field{Key: "qp-states", Text: g.qpStatesText(), Value: stateJSON},
		num("pinned", g.Pinned), num("vmpin", g.VmPin))
	lim, ratio := g.Memlock()
	limText := lim.String()
	var limJSON any = lim.Value
	switch {
	case g.Worst < 0:
		limText, limJSON = None, nil
	case lim.Unlimited:
		limJSON = "unlimited"
	}
	pct := uint64(math.Round(ratio * 100))
	r = append(r, view.Field{Key: "memlock", Text: limText, Value: limJSON},
		view.Field{Key: "memlock-used", Text: strconv.FormatUint(pct, 10) + "%", Value: math.Round(ratio*1000) / 1000, Num: pct, IsNum: true})
	growth := map[string]float64{}
	for k, v := range g.Growth() {
		growth[string(k)] = math.Round(v*10) / 10
	}
	r = append(r, view.Field{Key: "growth", Text: g.growthText(), Value: growth})
	flags := g.Flags()
	r = append(r, view.Field{Key: "flags", Text: orNone(strings.Join(flags, ",")), Value: flags})
	return r
}

// qpStatesText is the group's QPs by state, "RTS:2,ERR:1", or None.
func (g *Group) qpStatesText() string {
	var parts []string
	for _, s := range statesShown(g.QPStates) {
		parts = append(parts, s.IPRoute2()+":"+strconv.Itoa(g.QPStates[s]))
	}
	return orNone(strings.Join(parts, ","))
}

func num(k string, v uint64) view.Field {
	return view.Field{Key: k, Text: strconv.FormatUint(v, 10), Value: v, Num: v, IsNum: true}
}

func str(k, v string) view.Field { return view.Field{Key: k, Text: orNone(v), Value: v} }

func orNone(s string) string {
	if s == "" {
		return None
	}
	return s
}

// distinct joins the members' different values of one attribute.
// userText is a member's user as a row prints it: the name with the
// uid, "alice(1000)"; the uid alone when it has no name.
func userText(p *Process) string {
	uid := strconv.Itoa(p.UID)
	switch {
	case p.UID < 0 || p.Gone:
		return p.User
	case p.User == "" || p.User == uid:
		return uid
	}
	return p.User + "(" + uid + ")"
}

func distinct(g *Group, of func(*Process) string) string {
	var out []string
	for i := range g.Processes {
		if v := of(&g.Processes[i]); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return strings.Join(out, ",")
}
