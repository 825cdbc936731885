package doctor

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// objRef is one user verbs object of a netlink snapshot.
type objRef struct {
	kind inspect.Kind
	obj  *inspect.Object
	id   uint32
}

// userObjects lists the objects of a snapshot that processes created
// (kernel objects have a kern name and no pid).
func userObjects(s *inspect.Snapshot) []objRef {
	var out []objRef
	s.Each(func(k inspect.Kind, o *inspect.Object, id uint32) {
		if !o.Kernel() {
			out = append(out, objRef{k, o, id})
		}
	})
	return out
}

// owner states of a user object.
const (
	ownerLive   = "live"
	ownerZombie = "zombie"
	ownerGone   = "gone"
	ownerNoPID  = "no pid"
)

// orphans are the objects on one device of one dead (or unknown) owner.
type orphans struct {
	dev   string
	pid   uint32 // 0 when the kernel sent none
	state string
	comm  string
	ids   map[inspect.Kind][]uint32
}

// ownerState names what inspect found of an object's creator in /proc
// (inspect.Owner, read when the object was dumped).
func ownerState(o *inspect.Object) string {
	switch o.Owner {
	case inspect.OwnerExited:
		return ownerNoPID
	case inspect.OwnerZombie:
		return ownerZombie
	case inspect.OwnerGone:
		return ownerGone
	}
	return ownerLive
}

// process is the process an object's creating thread belongs to.
func process(o *inspect.Object) int {
	if o.TGID != 0 {
		return int(o.TGID)
	}
	return int(o.PID)
}

func (o *orphans) text() string {
	var parts []string
	for _, k := range rdma.ResourceKinds() {
		ids := o.ids[k]
		if len(ids) == 0 {
			continue
		}
		s := plural(len(ids), k.Short())
		if k == rdma.KindQP {
			var n []string
			for _, id := range ids {
				n = append(n, strconv.FormatUint(uint64(id), 10))
			}
			s += " (lqpn " + strings.Join(n, ", ") + ")"
		}
		parts = append(parts, s)
	}
	return joinAnd(parts)
}

func (o *orphans) ownerText() string {
	switch o.state {
	case ownerZombie:
		return fmt.Sprintf("pid %d (%s), which has exited and is a zombie", o.pid, o.comm)
	case ownerGone:
		return fmt.Sprintf("pid %d, which no longer exists", o.pid)
	}
	return "a task that has exited (the kernel no longer reports its pid)"
}

// checkLeaks finds verbs objects whose creator is dead: the kernel keeps
// a process's objects until the last descriptor of its uverbs file
// closes, so a child that inherited the descriptor keeps them after the
// process exits (the seed's QPs "leaked" by an abnormal exit). It also
// names the processes holding the device open.
func checkLeaks(f *Facts) Result {
	r := newResult()
	if res, ok := withoutNetlink(f, r, "netlink describes this host, not the tree"); ok {
		return res
	}
	if f.Netlink == nil {
		return r.na("netlink was not asked")
	}
	objs := userObjects(f.Netlink)
	o := groupOrphans(objs)
	holders := holdersByDevice(f)
	if len(o.groups) == 0 {
		r.judge(Pass, "user objects", fmt.Sprintf("%d, of %d live processes", len(objs), len(o.live)), srcNetlinkRes)
		r.ok("no verbs object outlives its process (%d user objects, all of live processes)", len(objs))
		noteHolders(r, f, holders, o.ctxOwners)
		return r.done()
	}
	for _, g := range o.groups {
		var inherited []sysfsmon.FDHolder
		for _, h := range holders[g.dev] {
			if !o.ctxOwners[g.dev][h.PID] {
				inherited = append(inherited, h)
			}
		}
		judgeOrphans(r, g, inherited)
	}
	noteHolders(r, f, holders, o.ctxOwners)
	if f.HoldersUnreadable > 0 {
		r.fix("run doctor as root to see every process that holds a /dev/infiniband descriptor (%s could not be read)", plural(f.HoldersUnreadable, "process"))
	}
	r.fix("prevent it: a child that inherits the uverbs descriptor (fork without exec, or passed on purpose) keeps the parent's objects; close it in the child, or open the device after forking")
	r.fix("if no process holds the device, reloading its driver frees everything (modprobe -r DRIVER; modprobe DRIVER), and ends every RDMA user of it")
	return r.done()
}

// ownership is the user objects sorted by their owners: the groups of
// objects whose owner is not live (by device and owner, in order), the
// live processes, and which of them own a context on each device (a
// holder of the device that owns none has inherited its descriptor).
type ownership struct {
	groups    []*orphans
	live      map[int]bool
	ctxOwners map[string]map[int]bool
}

func groupOrphans(objs []objRef) ownership {
	o := ownership{live: map[int]bool{}, ctxOwners: map[string]map[int]bool{}}
	byOwner := map[[2]string]*orphans{}
	var keys [][2]string
	for _, u := range objs {
		state := ownerState(u.obj)
		if state == ownerLive {
			o.live[process(u.obj)] = true
			if u.kind == rdma.KindCtx {
				if o.ctxOwners[u.obj.DevName] == nil {
					o.ctxOwners[u.obj.DevName] = map[int]bool{}
				}
				o.ctxOwners[u.obj.DevName][process(u.obj)] = true
			}
			continue
		}
		k := [2]string{u.obj.DevName, strconv.FormatUint(uint64(u.obj.PID), 10) + state}
		g := byOwner[k]
		if g == nil {
			g = &orphans{dev: u.obj.DevName, pid: u.obj.PID, state: state, comm: u.obj.Comm, ids: map[inspect.Kind][]uint32{}}
			byOwner[k] = g
			keys = append(keys, k)
		}
		g.ids[u.kind] = append(g.ids[u.kind], u.id)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+a[1], b[0]+b[1]) })
	for _, k := range keys {
		o.groups = append(o.groups, byOwner[k])
	}
	return o
}

// judgeOrphans judges one owner's objects on one device, and says what
// keeps them alive: inherited are the device's holders without a
// context of their own.
func judgeOrphans(r *result, g *orphans, inherited []sysfsmon.FDHolder) {
	// A dead or zombie owner is certain; objects without a pid may
	// also be a live process's whose creating thread ended, which
	// netlink cannot tell apart.
	v := Fail
	if g.state == ownerNoPID {
		v = Warn
	}
	src := srcNetlinkRes
	if g.pid != 0 {
		src += fmt.Sprintf(", /proc/%d/stat", g.pid)
	}
	who := "an unknown owner"
	if g.pid != 0 {
		who = fmt.Sprintf("pid %d", g.pid)
	}
	r.judge(v, g.dev+" objects of "+who, g.text()+"; "+g.ownerText(), src)
	msg := fmt.Sprintf("%s: %s of %s", g.dev, g.text(), g.ownerText())
	var hs []string
	for _, h := range inherited {
		hs = append(hs, fmt.Sprintf("pid %d (%s) holds %s as fd %d", h.PID, h.Comm, h.Path, h.FD))
	}
	switch {
	case len(hs) > 0 && v == Fail:
		msg += ": they live on because " + joinAnd(hs)
		for _, h := range inherited {
			r.fix("kill %d (%s), or make it close fd %d: it holds %s without a context of its own on %s, which keeps the dead process's objects alive; the kernel destroys them when the last descriptor closes", h.PID, h.Comm, h.FD, h.Path, g.dev)
		}
	case len(hs) > 0:
		msg += ": " + joinAnd(hs) + " without a context of its own; if it inherited the descriptor, they are leaked and live as long as it does, if one of its own threads made them, they are its own"
		for _, h := range inherited {
			r.fix("if %d (%s) inherited %s (fd %d): kill it, or make it close the descriptor; the kernel destroys the objects when the last descriptor closes", h.PID, h.Comm, h.Path, h.FD)
		}
	case v == Warn:
		msg += "; no process holds the device without a context of its own, so they probably belong to a live process whose creating thread ended"
	default:
		msg += "; no process was found that holds the device open"
	}
	r.problem(v, "%s", msg)
}

// holdersByDevice maps each RDMA device to the descriptors open on its
// uverbs node.
func holdersByDevice(f *Facts) map[string][]sysfsmon.FDHolder {
	dev := map[string]string{}
	for _, d := range f.Devices {
		if d.Uverbs != "" {
			dev["/dev/infiniband/"+d.Uverbs] = d.Name
		}
	}
	out := map[string][]sysfsmon.FDHolder{}
	for _, h := range f.Holders {
		if d, ok := dev[strings.TrimSuffix(h.Path, " (deleted)")]; ok {
			out[d] = append(out[d], h)
		}
	}
	return out
}

// noteHolders lists who holds each device open, marking those that own no
// context on it.
func noteHolders(r *result, f *Facts, holders map[string][]sysfsmon.FDHolder, ctxOwners map[string]map[int]bool) {
	if f.HoldersErr != nil {
		r.note("descriptors on /dev/infiniband", f.HoldersErr.Error(), "/proc/*/fd")
	}
	for _, d := range f.Devices {
		for _, h := range holders[d.Name] {
			v := fmt.Sprintf("pid %d (%s) fd %d", h.PID, h.Comm, h.FD)
			if !ctxOwners[d.Name][h.PID] {
				v += ": owns no context on " + d.Name + " (inherited the descriptor, or its creating thread ended)"
			}
			r.note(h.Path, v, fmt.Sprintf("/proc/%d/fd/%d", h.PID, h.FD))
		}
	}
	if f.HoldersUnreadable > 0 {
		r.note("unreadable", plural(f.HoldersUnreadable, "process")+" whose descriptors only root may read", "/proc/*/fd")
	}
}

// withoutNetlink is the verdict of a check that needs this host's
// netlink dump when it has none: recorded facts, no RDMA netlink, or a
// failed dump. ok is false when the dump is there (or was not asked).
func withoutNetlink(f *Facts, r *result, recorded string) (res Result, ok bool) {
	switch {
	case !f.Live:
		return r.na("the facts come from a recorded tree: %s", recorded), true
	case errors.Is(f.NetlinkErr, inspect.ErrNoRDMA):
		return r.na("the kernel has no RDMA netlink (no ib_core)"), true
	case f.NetlinkErr != nil:
		r.judge(Warn, "netlink", f.NetlinkErr.Error(), srcNetlinkRes)
		r.problem(Warn, "the RDMA objects could not be dumped over netlink")
		return r.done(), true
	}
	return Result{}, false
}
