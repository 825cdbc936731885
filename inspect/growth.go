package inspect

import (
	"maps"
	"slices"
	"time"
)

// Growth is a leak suspect: a process whose objects of one kind only grew
// over the Tracker's window (TrackerConfig.GrowthWindow), by at least
// TrackerConfig.GrowthMin, and were still growing in its second half. A
// program that creates its objects at start and keeps them stops being
// one a window after its last creation; one that creates and destroys
// stays below the rule. Counts are per process (thread group) over every
// device, as restrack records each object's creator
// (drivers/infiniband/core/restrack.c).
type Growth struct {
	TGID uint32
	Comm string
	Kind Kind
	// From is the count at Since (the window's start, or the process's
	// first reading when it is younger), To the count now.
	From, To int
	Since    time.Time
	// PerMinute is the slope: (To-From) over the minutes since Since.
	PerMinute float64
}

// Defaults of TrackerConfig's growth rule.
const (
	DefaultGrowthWindow = 10 * time.Minute
	defaultGrowthMin    = 10
)

// ownerKind is one process's objects of one kind.
type ownerKind struct {
	tgid uint32
	kind Kind
}

// countSample is a count and when it was first read; a series keeps one
// sample per change.
type countSample struct {
	at time.Time
	n  int
}

// growthSeries is one process's count of one kind over the window.
type growthSeries struct {
	comm    string
	samples []countSample
	// first is when the process was first read with the kind.
	first time.Time
}

// trackGrowth records each process's counts of s and returns the kinds
// that grow by the Tracker's rule, by TGID and kind.
func (t *Tracker) trackGrowth(now time.Time, procs []ProcessUsage) []Growth {
	window, min := t.cfg.GrowthWindow, t.cfg.GrowthMin
	counts := map[ownerKind]int{}
	comms := map[uint32]string{}
	for _, p := range procs {
		for k, n := range p.Counts {
			counts[ownerKind{p.PID, k}] += n
		}
		comms[p.PID] = p.Comm
	}
	// A kind a process no longer has counts 0 while the process lives;
	// a process that is gone takes its series with it.
	for ok := range t.growth {
		if _, live := comms[ok.tgid]; !live {
			delete(t.growth, ok)
		} else if _, has := counts[ok]; !has {
			counts[ok] = 0
		}
	}
	var out []Growth
	for _, ok := range slices.SortedFunc(maps.Keys(counts), func(a, b ownerKind) int {
		if a.tgid != b.tgid {
			return int(a.tgid) - int(b.tgid)
		}
		return compareKind(a.kind, b.kind)
	}) {
		n := counts[ok]
		gs := t.growth[ok]
		if gs == nil {
			gs = &growthSeries{first: now}
			t.growth[ok] = gs
		}
		gs.comm = comms[ok.tgid]
		if len(gs.samples) == 0 || gs.samples[len(gs.samples)-1].n != n {
			gs.samples = append(gs.samples, countSample{now, n})
		}
		// Keep one sample at or before the window's start: the baseline.
		start := now.Add(-window)
		i := 0
		for i+1 < len(gs.samples) && !gs.samples[i+1].at.After(start) {
			i++
		}
		gs.samples = gs.samples[i:]
		if g, ok := gs.growing(ok, now, window, min); ok {
			out = append(out, g)
		}
	}
	return out
}

// growing applies the rule to one series.
func (gs *growthSeries) growing(ok ownerKind, now time.Time, window time.Duration, min int) (Growth, bool) {
	s := gs.samples
	since := s[0].at
	if start := now.Add(-window); since.Before(start) {
		since = start
	}
	// Half a window seen at least, so a process's start is no trend.
	if now.Sub(gs.first) < window/2 || len(s) < 2 {
		return Growth{}, false
	}
	for i := 1; i < len(s); i++ {
		if s[i].n < s[i-1].n {
			return Growth{}, false
		}
	}
	from, to := s[0].n, s[len(s)-1].n
	lastRise := s[len(s)-1].at
	if to-from < min || now.Sub(lastRise) >= window/2 {
		return Growth{}, false
	}
	minutes := now.Sub(since).Minutes()
	g := Growth{TGID: ok.tgid, Comm: gs.comm, Kind: ok.kind, From: from, To: to, Since: since}
	if minutes > 0 {
		g.PerMinute = float64(to-from) / minutes
	}
	return g, true
}

// compareKind orders kinds as rdma.ResourceKinds lists them.
func compareKind(a, b Kind) int {
	return kindRank(a) - kindRank(b)
}

func kindRank(k Kind) int {
	for i, rk := range resourceKinds {
		if rk.kind == k {
			return i
		}
	}
	return len(resourceKinds)
}
