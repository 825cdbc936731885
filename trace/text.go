package trace

import (
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// Text is the event as one strace-like line (and, for a failed modify,
// rdma.Check's explanation indented below it), without a newline at the
// end:
//
//	12:00:01.234567 ibv_rc_pingpong[812] modify_qp rxe0 qpn 17 INIT→RTR path_mtu=1024 dest_qp_num=18 rq_psn=0x5a3f12 … = 0
func (e *Event) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", e.Time.Format("15:04:05.000000"), view.Process(e.Comm, e.PID), e.Verb)
	if e.Dev != "" {
		b.WriteString(" " + view.Printable(e.Dev))
	}
	if e.HasQPN {
		fmt.Fprintf(&b, " qpn %d", e.QPN)
	}
	for _, w := range e.words() {
		b.WriteString(" " + w)
	}
	fmt.Fprintf(&b, " = %d", e.Ret)
	if e.Ret < 0 {
		fmt.Fprintf(&b, " %s (%s)", errnoName(e.Errno), e.Errno.Error())
		if e.Stage == StageUVerbs {
			fmt.Fprintf(&b, ", refused by uverbs (%s) before the core saw it", e.Handler)
		}
	}
	if e.Check != nil {
		for _, l := range strings.Split(strings.TrimRight(e.Check.Explain(), "\n"), "\n") {
			b.WriteString("\n    check: " + l)
		}
	}
	return b.String()
}

// words are what the verb carries, between the object and the result.
func (e *Event) words() []string {
	if e.Stage == StageUVerbs {
		return nil
	}
	switch e.Verb {
	case VerbModifyQP:
		// The words res qp --follow and the dashboard print too.
		m := e.modify()
		v := m.View()
		w := []string{v.Transition()}
		if set := v.SetText(); set != "" {
			w = append(w, set)
		}
		if e.rewroteHopLimit() {
			w = append(w, fmt.Sprintf("(the kernel set hop_limit=%d, the route's)", e.RouteHopLimit))
		}
		return w
	case VerbCreateQP:
		return []string{e.QPType.String(), capText(e.Cap)}
	case VerbDestroyQP:
		return []string{e.QPType.String()}
	case VerbAsyncEvent:
		return []string{e.AsyncEvent.String()}
	case VerbRegMR, VerbDeregMR:
		w := []string{fmt.Sprintf("mrn %d mrlen=%d iova=%#x lkey=%#x rkey=%#x", e.ObjID, e.Length, e.IOVA, e.LKey, e.RKey)}
		if e.HasAccess {
			w = append(w, "access="+e.Access.String())
		}
		return w
	case VerbCreateCQ, VerbDestroyCQ:
		return []string{fmt.Sprintf("cqn %d cqe=%d", e.ObjID, e.Length)}
	}
	if k := objKey(e.Verb); k != "" {
		return []string{fmt.Sprintf("%s %d", k, e.ObjID)}
	}
	return nil
}

// rewroteHopLimit: the modify succeeded with a global AV whose hop limit
// the kernel replaced.
func (e *Event) rewroteHopLimit() bool {
	return e.Ret == 0 && e.Mask&rdma.AttrAV != 0 && e.Attr.AH.IsGlobal && e.RouteHopLimit != e.Attr.AH.GRH.HopLimit
}
