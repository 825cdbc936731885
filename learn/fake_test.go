package learn

import (
	"context"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
)

// fakeShell is a front.Engine with a tiny language, enough to drive
// lessons without a device:
//
//	mk KIND NAME [PARENT [STATE]]   an object
//	set NAME STATE          a QP's state (QPs are made in RESET)
//	rm NAME                 destroy
//	refuse                  a refusal
//	poll CQ QP OPCODE STATUS DATA   one completion
//	event TYPE OBJECT       an async event
//	doctor ID VERDICT       a doctor run with one check
type fakeShell struct {
	st     front.State
	id     uint64
	events chan front.Event
	closed bool
	ran    []string
}

func newFake() *fakeShell {
	return &fakeShell{st: front.State{PID: 4242}, events: make(chan front.Event, 4)}
}

func (f *fakeShell) Exec(_ context.Context, line string) (front.Result, error) {
	f.ran = append(f.ran, line)
	w := strings.Fields(line)
	if len(w) == 0 {
		return front.Result{}, nil
	}
	switch {
	case w[0] == "mk" && len(w) >= 3:
		f.id++
		o := front.Object{ID: f.id, Kind: rdma.Kind(w[1]), Name: w[2], QPN: uint32(f.id)}
		if len(w) > 3 {
			o.Parent = w[3]
		}
		if o.Kind == rdma.KindQP {
			o.State, o.QPType = rdma.QPStateReset, rdma.QPTypeRC
		}
		if len(w) > 4 {
			o.State = fakeState(w[4])
		}
		f.st = f.st.Put(o)
	case w[0] == "set" && len(w) == 3:
		o, ok := f.st.Object(w[1])
		if !ok {
			return front.Result{}, &front.Error{What: "no " + w[1]}
		}
		o.State = fakeState(w[2])
		f.st = f.st.Put(o)
	case w[0] == "rm" && len(w) == 2:
		o, _ := f.st.Object(w[1])
		f.st = f.st.Remove(o.ID)
	case w[0] == "event" && len(w) == 3:
		f.events <- front.Event{Kind: front.EventAsync, Object: w[2], Text: w[1] + " on " + w[2] + ": it happened"}
	case w[0] == "doctor" && len(w) == 3:
		return front.Result{Text: "doctor", Data: []map[string]any{{"id": w[1], "verdict": w[2], "summary": "it is so"}}}, nil
	case w[0] == "why" && len(w) == 3:
		return front.Result{Text: w[1] + " " + w[2] + ": while rcvd_rnr_err rose", Data: map[string]any{"qp": w[1], "cause": w[2]}}, nil
	case w[0] == "poll" && len(w) == 6:
		return front.Result{Text: "polled", Data: []map[string]any{{"qp": w[2], "opcode": w[3], "status": w[4], "data": w[5]}}}, nil
	default:
		return front.Result{}, &front.Error{What: "refused: " + line, Why: "it is wrong", Fix: "do the other thing"}
	}
	return front.Result{Text: "ok"}, nil
}

func (f *fakeShell) Complete(string, int) front.Completion { return front.Completion{} }
func (f *fakeShell) State() front.State                    { return f.st }
func (f *fakeShell) Events() <-chan front.Event            { return f.events }
func (f *fakeShell) Close() error {
	if !f.closed {
		f.closed = true
		close(f.events)
	}
	return nil
}

// fakeState reads a state word of the fake's script; a word that names
// none is a state the shell does not know.
func fakeState(w string) rdma.QPState {
	if st, ok := rdma.ParseQPState(w); ok {
		return st
	}
	return rdma.QPStateUnknown
}
