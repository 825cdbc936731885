package shell

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "ls", aliases: []string{"tree"}, usage: "ls",
		summary: "show the session's objects as a tree: context → PD → QP/MR, QP → CQs, with states",
		help: `example:
  open; pd; cq; qp; ls`,
		run: runLs,
	})
	register(&command{
		name: "destroy", aliases: []string{"rm"}, usage: "destroy NAME [--cascade]",
		summary: "destroy an object; --cascade first destroys what uses it",
		help: `Without --cascade this is the bare libibverbs call: destroying a PD
that still has QPs or MRs fails with EBUSY, exactly as in C, and the shell
says which objects are in the way. --cascade destroys those first, in the
order libibverbs needs (QPs, then MRs, then the PD…).

examples:
  open; pd; cq; qp; mr
  destroy qp1
  destroy pd1 --cascade`,
		flags: []flagSpec{{"cascade", "destroy everything that uses it first"}},
		pos:   []argKind{objArg(rdma.KindCtx, rdma.KindPD, rdma.KindMR, rdma.KindCQ, rdma.KindChannel, rdma.KindQP, rdma.KindAH)},
		run:   runDestroy,
	})
	register(&command{
		name: "rename", usage: "rename NAME NEWNAME",
		summary: "give an object a name of your own (qp1 → client)",
		help: `Names are letters, digits, _ . and -, starting with a letter.

examples:
  open; pd; cq; qp
  rename qp1 client; next client`,
		pos: []argKind{objArg(rdma.KindCtx, rdma.KindPD, rdma.KindMR, rdma.KindCQ, rdma.KindChannel, rdma.KindQP, rdma.KindAH), {name: "new name"}},
		run: runRename,
	})
}

// summary is an object in one line, for ls, show and completion.
func (s *Shell) summary(e *entry) string {
	switch e.kind {
	case rdma.KindCtx:
		return "device " + e.ctx.Device.Name
	case rdma.KindPD:
		return "protection domain"
	case rdma.KindChannel:
		return "completion channel"
	case rdma.KindAH:
		return "address handle to " + e.ah.Attr().GRH.DGID.String()
	case rdma.KindMR:
		return fmt.Sprintf("MR, %d bytes, lkey 0x%x rkey 0x%x, %s", e.mr.Len(), e.mr.LKey(), e.mr.RKey(), e.mr.Access())
	case rdma.KindCQ:
		d := fmt.Sprintf("CQ, %d entries", e.cq.CQE())
		if ch := e.cq.Channel(); ch != nil {
			for o := range s.objs.byKind[rdma.KindChannel] {
				if o.ch == ch {
					d += ", channel " + o.name
				}
			}
		}
		return d
	case rdma.KindQP:
		st := "?"
		if state, err := e.qp.State(); err == nil {
			st = state.String()
		}
		return fmt.Sprintf("%s QP %d, %s", e.qp.Type(), e.qp.Num(), st)
	}
	return string(e.kind)
}

func runLs(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 0); err != nil {
		return Result{}, err
	}
	if len(s.objs.byName) == 0 {
		return Result{Text: "no objects yet: start with `open`", Data: []any{}}, nil
	}
	children := map[*entry][]*entry{}
	var roots []*entry
	for _, e := range s.objs.all() {
		if e.parent == nil {
			roots = append(roots, e)
		} else {
			children[e.parent] = append(children[e.parent], e)
		}
	}
	var b strings.Builder
	var data []map[string]any
	var walk func(e *entry, indent string, last bool, top bool)
	walk = func(e *entry, indent string, last bool, top bool) {
		branch, next := "├─ ", indent+"│  "
		if last {
			branch, next = "└─ ", indent+"   "
		}
		if top {
			branch, next = "", ""
		}
		line := fmt.Sprintf("%s%s%-6s %s", indent, branch, e.name, s.summary(e))
		if e.kind == rdma.KindQP {
			line += " → " + cqNames(e.sendCQ, e.recvCQ)
		}
		b.WriteString(line + "\n")
		d := map[string]any{"name": e.name, "kind": string(e.kind), "what": s.summary(e)}
		if e.parent != nil {
			d["parent"] = e.parent.name
		}
		data = append(data, d)
		kids := children[e]
		for i, k := range kids {
			walk(k, next, i == len(kids)-1, false)
		}
	}
	for _, r := range roots {
		walk(r, "", true, true)
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

// closeFn is how destroy ends an object: the bare libibverbs destroy, or
// with cascade the library's Close, which destroys what uses it first.
// cascades says which it is.
func (e *entry) closeFn(cascade bool) (fn func() error, cascades bool) {
	// A context and a completion channel have no bare destroy: closing
	// them is the cascade.
	if d, ok := e.obj.(destroyer); ok && !cascade {
		return d.Destroy, false
	}
	return e.obj.Close, true
}

func runDestroy(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0])
	if err != nil {
		return Result{}, err
	}
	destroy, cascades := e.closeFn(a.flag("cascade"))
	err = destroy()
	// A bare destroy takes e alone; a cascade (even one that failed half
	// way) may have taken anything that depends on it.
	among := []*entry{e}
	if cascades {
		among = s.objs.all()
	}
	gone := s.prune(among)
	if err != nil {
		if errors.Is(err, syscall.EBUSY) {
			return Result{}, &Error{What: "destroy " + e.name + " failed with EBUSY: it is still in use",
				Why: err.Error(), Fix: "destroy the objects that use it first, or `destroy " + e.name + " --cascade`", Err: err}
		}
		return Result{}, failed("destroy "+e.name, err)
	}
	return Result{Text: "destroyed " + strings.Join(gone, ", "), Data: map[string]any{"destroyed": gone}}, nil
}

func runRename(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0])
	if err != nil {
		return Result{}, err
	}
	if err := s.checkNewName(a.pos[1]); err != nil {
		return Result{}, err
	}
	old := e.name
	s.objs.rename(e, a.pos[1])
	return Result{Text: old + " is now " + e.name, Data: map[string]any{"old": old, "new": e.name}}, nil
}

// qpState is the QP's state as the library reports it now.
func qpState(e *entry) (verbs.QPState, error) {
	st, err := e.qp.State()
	if err != nil {
		return 0, failed("query "+e.name, err)
	}
	return st, nil
}
