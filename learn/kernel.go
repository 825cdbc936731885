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

// View dumps the QPs, CQs, MRs, PDs and contexts and keeps the process's.
func (n Netlink) View(pid int) (*KernelView, error) {
	kv := &KernelView{QPStates: map[uint32]string{}, Counts: map[rdma.Kind]int{}}
	mine := func(o *inspect.Object) bool { return int(o.TGID) == pid || int(o.PID) == pid }
	qps, err := n.Conn.QPs(inspect.Query{})
	if err != nil {
		return nil, err
	}
	for _, q := range qps {
		if mine(&q.Object) {
			kv.QPStates[q.LQPN] = q.State.String()
			kv.Counts[rdma.KindQP]++
		}
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
		if mine(obj(o)) {
			kv.Counts[k]++
		}
	}
	return nil
}

// Unmet says which of the lesson's requirements this host lacks, in
// words ("" when it has them all).
func Unmet(l Lesson) string {
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
