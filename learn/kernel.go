package learn

import (
	"os/exec"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// Kernel reports what the kernel itself holds for a process. Checks
// consult it so a step is judged on the kernel's objects, not only on
// the shell's idea of them.
type Kernel interface {
	View(pid int) (*KernelView, error)
}

// Netlink is the Kernel as RDMA netlink reports it (`rdma resource
// show`, through inspect).
type Netlink struct{ Conn *inspect.Conn }

// View dumps the QPs, CQs, MRs, PDs and contexts: the process's, and
// the other processes' counted by name.
func (n Netlink) View(pid int) (*KernelView, error) {
	kv := &KernelView{QPStates: map[uint32]rdma.QPState{}, Counts: map[rdma.Kind]int{}, Others: map[string]map[rdma.Kind]int{}}
	mine := func(o *inspect.Object) bool { return int(o.TGID) == pid || int(o.PID) == pid }
	qps, err := n.Conn.QPs(inspect.Query{})
	if err != nil {
		return nil, err
	}
	for _, q := range qps {
		if mine(&q.Object) {
			kv.QPStates[q.LQPN] = q.State
		}
		kv.add(rdma.KindQP, &q.Object, mine)
	}
	if err := count(kv, rdma.KindCQ, n.Conn.CQs, func(c inspect.CQ) *inspect.Object { return &c.Object }, mine); err != nil {
		return nil, err
	}
	if err := count(kv, rdma.KindMR, n.Conn.MRs, func(m inspect.MR) *inspect.Object { return &m.Object }, mine); err != nil {
		return nil, err
	}
	if err := count(kv, rdma.KindPD, n.Conn.PDs, func(p inspect.PD) *inspect.Object { return &p.Object }, mine); err != nil {
		return nil, err
	}
	if err := count(kv, rdma.KindCtx, n.Conn.Contexts, func(c inspect.Context) *inspect.Object { return &c.Object }, mine); err != nil {
		return nil, err
	}
	return kv, nil
}

func count[T any](kv *KernelView, k rdma.Kind, dump func(inspect.Query) ([]T, error), obj func(T) *inspect.Object, mine func(*inspect.Object) bool) error {
	objs, err := dump(inspect.Query{})
	if err != nil {
		return err
	}
	for _, o := range objs {
		kv.add(k, obj(o), mine)
	}
	return nil
}

// add counts one object: the process's own, or another process's under
// its name (the kernel's own objects are no process's).
func (kv *KernelView) add(k rdma.Kind, o *inspect.Object, mine func(*inspect.Object) bool) {
	switch {
	case mine(o):
		kv.Counts[k]++
	case !o.Kernel():
		if kv.Others[o.Comm] == nil {
			kv.Others[o.Comm] = map[rdma.Kind]int{}
		}
		kv.Others[o.Comm][k]++
	}
}

// unmet says which of the lesson's requirements this host lacks, in
// words ("" when it has them all).
func unmet(l Lesson) string {
	if l.Skip != "" {
		return l.Skip
	}
	for _, r := range l.Requires {
		if _, err := exec.LookPath(r.Arg); err != nil {
			return "it needs " + r.Arg + ", which is not on $PATH"
		}
	}
	return ""
}
