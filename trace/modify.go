package trace

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// tracked is a modify_qp event as the inspector's Tracker takes it
// (inspect.Tracker.Observe, inspect.WatchOptions.Modifies); false for
// other events and for a modify uverbs refused before the core (it names
// no QP the kernel knows).
func (e *Event) tracked() (inspect.Modify, bool) {
	if e.Verb != VerbModifyQP || e.Stage != StageCore || !e.HasQPN {
		return inspect.Modify{}, false
	}
	m := e.modify()
	if b, err := json.Marshal(e.attrs()); err == nil {
		m.AttrsJSON = b
	}
	if e.Ret < 0 {
		m.Errno = errnoName(e.Errno)
		if e.Check != nil {
			if d := e.Check.Decisive(); d != nil {
				m.Check = d.Problem
			} else {
				m.Check = fmt.Sprintf("rdma.Check predicted %s", errnoName(e.Check.Errno))
			}
		}
	}
	return m, true
}

// modify is what a modify_qp event asked for and who asked: the part of
// Modify the text line prints too (Text), through view.Modify.
func (e *Event) modify() inspect.Modify {
	m := inspect.Modify{
		Time: e.Time, Dev: e.Dev, QPN: e.QPN, PID: e.PID, Comm: e.Comm,
		From: inspect.QPState(e.From), To: inspect.QPState(e.Attr.State), HasState: e.Mask&rdma.AttrState != 0,
		FromKnown: e.FromKnown, Type: e.QPType, Port: uint32(e.Port),
		Mask: maskNames(e.Mask), Ret: e.Ret,
	}
	for _, f := range attrFields {
		if e.Mask&f.bit == 0 {
			continue
		}
		v := f.text(&e.Attr)
		if f.bit == rdma.AttrAV || f.bit == rdma.AttrCap {
			// The AV and cap text is already "name=value ..."; each
			// becomes its own attribute.
			for _, kv := range strings.Fields(v) {
				name, val, _ := strings.Cut(kv, "=")
				m.Attrs = append(m.Attrs, inspect.ModifyAttr{Name: f.key + "." + name, Value: val})
			}
			continue
		}
		m.Attrs = append(m.Attrs, inspect.ModifyAttr{Name: f.key, Value: v})
	}
	return m
}

// feed puts every modify Read returns on q until the tracer is closed:
// the reader behind the dashboard's and the exporter's QP histories.
// Putting never waits (inspect.ModifyQueue), so the reader keeps up with
// the kernel's ring buffer whatever the Watcher is doing.
func (t *Tracer) feed(q *inspect.ModifyQueue) {
	for {
		e, err := t.Read()
		if err != nil {
			return // closed: Read ends no other way
		}
		if m, ok := e.tracked(); ok {
			q.Put(m)
		} else if x, ok := e.touch(); ok {
			q.Touch(x)
		}
	}
}

// touchKinds is the object kind each create and destroy verb is of, and
// whether it destroys.
var touchKinds = map[Verb]struct {
	kind rdma.Kind
	gone bool
}{
	VerbCreateQP: {rdma.KindQP, false}, VerbDestroyQP: {rdma.KindQP, true},
	VerbAllocPD: {rdma.KindPD, false}, VerbDeallocPD: {rdma.KindPD, true},
	VerbCreateCQ: {rdma.KindCQ, false}, VerbDestroyCQ: {rdma.KindCQ, true},
	VerbRegMR: {rdma.KindMR, false}, VerbDeregMR: {rdma.KindMR, true},
	VerbCreateSRQ: {rdma.KindSRQ, false}, VerbDestroySRQ: {rdma.KindSRQ, true},
	VerbAllocContext: {rdma.KindCtx, false}, VerbFreeContext: {rdma.KindCtx, true},
	VerbCreateCMID: {rdma.KindCMID, false}, VerbDestroyCMID: {rdma.KindCMID, true},
}

// touch is the object a create or destroy that succeeded in the core
// made or ended, for a Watcher that builds its readings from trace
// (inspect.WatchOptions.Reconcile); ok is false for any other event.
func (e Event) touch() (inspect.Touch, bool) {
	tk, ok := touchKinds[e.Verb]
	if !ok || e.Stage != StageCore || e.Ret != 0 || e.Dev == "" {
		return inspect.Touch{}, false
	}
	id := e.ObjID
	if tk.kind == rdma.KindQP {
		id = e.QPN
	}
	return inspect.Touch{Kind: tk.kind, Dev: e.Dev, ID: id, Port: uint32(e.Port), Gone: tk.gone, Time: e.Time}, true
}
