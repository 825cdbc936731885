package owners

import (
	"errors"
	"maps"
	"slices"
	"strconv"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Process is one process's RDMA objects with who it is.
type Process struct {
	sysfsmon.ProcessOwner
	// Gone is set when /proc has no such process any more (or never had:
	// objects whose creating task was reaped have no pid, and are all
	// counted under TGID 0): its objects are kept by a descriptor
	// another process holds, or leaked.
	Gone bool `json:"gone"`
	// Objects counts its objects by kind; QPStates its QPs by state.
	Objects  map[inspect.Kind]int `json:"objects"`
	QPStates map[rdma.QPState]int `json:"-"`
	Pinned   uint64               `json:"pinned_bytes"`
	// Growing are the kinds the Tracker judged leak suspects
	// (inspect.Growth; AddGrowth sets them).
	Growing []inspect.Growth `json:"growing,omitempty"`
}

// AddGrowth gives each process its kinds that grow (inspect's
// Update.Growing).
func AddGrowth(ps []Process, gs []inspect.Growth) {
	for _, g := range gs {
		for i := range ps {
			if ps[i].TGID == int(g.TGID) && !ps[i].Gone {
				ps[i].Growing = append(ps[i].Growing, g)
			}
		}
	}
}

// Lookup reads what /proc says about a process: sysfsmon.FS.ProcessOwner
// on a live host.
type Lookup func(tgid int) (sysfsmon.ProcessOwner, error)

// MemlockRatio is the share of the soft RLIMIT_MEMLOCK its pinned bytes
// take; 0 when the limit is unlimited or unknown.
func (p *Process) MemlockRatio() float64 {
	if p.MemlockSoft.Unlimited || p.MemlockSoft.Value == 0 {
		return 0
	}
	return float64(p.Pinned) / float64(p.MemlockSoft.Value)
}

// alertRatio is the share of RLIMIT_MEMLOCK past which a process is
// flagged: its next registrations are likely to fail.
const alertRatio = 0.8

// MemlockAlert reports whether the process pins more than 80% of
// a limit that applies to it (no CAP_IPC_LOCK).
func (p *Process) MemlockAlert() bool {
	return !p.Gone && !p.IPCLock && p.MemlockRatio() > alertRatio
}

// Read counts each process's user objects in s (kernel objects have no
// process and are left out) and looks every process up once. An object
// names the thread that created it; it is counted under its thread
// group (Object.TGID). Processes come in TGID order.
func Read(s *inspect.Snapshot, lookup Lookup) []Process {
	byTGID := map[uint32]*Process{}
	of := func(o *inspect.Object) *Process {
		if o.Kernel() {
			return nil
		}
		tgid := o.TGID
		if tgid == 0 && !o.Owner.Dead() {
			tgid = o.PID
		}
		if o.Owner == inspect.OwnerExited {
			tgid = 0
		}
		p := byTGID[tgid]
		if p == nil {
			p = &Process{Objects: map[inspect.Kind]int{}, QPStates: map[rdma.QPState]int{}}
			p.TGID, p.Comm, p.UID = int(tgid), o.Comm, -1
			byTGID[tgid] = p
		}
		p.Gone = p.Gone || o.Owner.Dead()
		return p
	}
	s.Each(func(k inspect.Kind, o *inspect.Object, _ uint32) {
		if p := of(o); p != nil {
			p.Objects[k]++
		}
	})
	for i := range s.QPs {
		if p := of(&s.QPs[i].Object); p != nil {
			p.QPStates[s.QPs[i].State]++
		}
	}
	for i := range s.MRs {
		if p := of(&s.MRs[i].Object); p != nil {
			p.Pinned += s.MRs[i].Len
		}
	}
	out := make([]Process, 0, len(byTGID))
	for _, tgid := range slices.Sorted(maps.Keys(byTGID)) {
		p := byTGID[tgid]
		if tgid == 0 {
			p.Gone, p.Comm = true, ""
		} else if po, err := lookup(int(tgid)); err == nil {
			if po.Comm == "" {
				po.Comm = p.Comm // a zombie has no comm file to read
			}
			p.ProcessOwner = po
		} else if errors.Is(err, sysfsmon.ErrNoProcess) {
			p.Gone = true
		} else {
			p.Warnings = append(p.Warnings, sysfsmon.Warning{Path: "/proc/" + strconv.Itoa(int(tgid)), Err: err})
		}
		out = append(out, *p)
	}
	return out
}
