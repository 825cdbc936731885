package shell

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "modify", aliases: []string{"modify_qp"}, usage: "modify QP STATE [ATTR=VALUE...] [--force]",
		summary: "move a QP to a state with named attributes (ibv_modify_qp), checked first",
		help: `Sends ibv_modify_qp with IBV_QP_STATE and the attributes you name.
Before it does, the shell checks the step against the kernel's own rules
(which transitions exist, which attributes each needs and allows for this
QP type, and the RoCE rules checked later) and explains what is missing or
not allowed. --force sends it anyway, to see the kernel's own answer.

examples:
  modify qp1 init port=1 pkey_index=0 access=remote_write
  modify qp1 rtr path_mtu=1024 dest_qpn=qp2 rq_psn=0 max_dest_rd_atomic=1 min_rnr_timer=12 dgid=10.0.0.1 sgid_index=1
  modify qp1 rts sq_psn=0 timeout=14 retry_cnt=7 rnr_retry=7 max_rd_atomic=1
  modify qp1 err`,
		flags: []flagSpec{{"force", "skip the check and let the kernel answer"}},
		pos:   []argKind{objArg(kindQP), {name: "state", items: stateSuggestions}},
		keys:  modifyKeys,
		run:   runModify,
	})
	register(&command{
		name: "query", aliases: []string{"query_qp"}, usage: "query QP",
		summary: "read a QP's attributes from the provider (ibv_query_qp)",
		pos:     []argKind{objArg(kindQP)},
		run:     runQuery,
	})
}

// stateSuggestions offers the states with the legal next steps first.
func stateSuggestions(s *Shell, pos []string) []Suggestion {
	var cur verbs.QPState = -1
	if len(pos) > 0 {
		if e := s.objs[pos[0]]; e != nil && e.kind == kindQP {
			if st, err := e.qp.State(); err == nil {
				cur = st
			}
		}
	}
	var legal, other []Suggestion
	for st := verbs.QPSReset; st <= verbs.QPSErr; st++ {
		if st == verbs.QPSSQE {
			continue // entered only by the hardware
		}
		sg := Suggestion{Text: strings.ToLower(st.String()), Description: stateWords[st]}
		if cur >= 0 && transitionLegal(cur, st) {
			sg.Description = "legal from " + cur.String() + ": " + stateWords[st]
			legal = append(legal, sg)
		} else {
			other = append(other, sg)
		}
	}
	return append(legal, other...)
}

// stateWords says what each state means, for completion and explain.
var stateWords = map[verbs.QPState]string{
	verbs.QPSReset: "fresh or recycled; nothing works",
	verbs.QPSInit:  "port and access set; receives may be posted",
	verbs.QPSRTR:   "ready to receive: knows its peer",
	verbs.QPSRTS:   "ready to send",
	verbs.QPSSQD:   "send queue drained, for changing attributes",
	verbs.QPSSQE:   "send queue error (UC/UD), set by the hardware",
	verbs.QPSErr:   "error: outstanding WRs complete with WR_FLUSH_ERR",
}

// transitionLegal is the kernel's table of which transitions exist
// (drivers/infiniband/core/verbs.c qp_state_table, valid bits).
func transitionLegal(from, to verbs.QPState) bool {
	switch {
	case to == verbs.QPSReset:
		return true
	case to == verbs.QPSErr:
		return from != verbs.QPSReset
	}
	switch from {
	case verbs.QPSReset:
		return to == verbs.QPSInit
	case verbs.QPSInit:
		return to == verbs.QPSInit || to == verbs.QPSRTR
	case verbs.QPSRTR:
		return to == verbs.QPSRTS
	case verbs.QPSRTS:
		return to == verbs.QPSRTS || to == verbs.QPSSQD
	case verbs.QPSSQD:
		return to == verbs.QPSRTS || to == verbs.QPSSQD
	case verbs.QPSSQE:
		return to == verbs.QPSRTS
	}
	return false
}

func modifyKeys(*Shell, []string) []keySpec {
	out := make([]keySpec, 0, len(qpKeys))
	for _, k := range qpKeys {
		out = append(out, keySpec{name: k.name, help: k.help, values: k.values})
	}
	return out
}

func runModify(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], kindQP)
	if err != nil {
		return Result{}, err
	}
	next, ok := verbs.ParseQPState(a.pos[1])
	if !ok || next == verbs.QPSUnknown {
		return Result{}, &Error{What: fmt.Sprintf("%q is not a QP state", a.pos[1]), Fix: "states: reset, init, rtr, rts, sqd, err"}
	}
	attr := verbs.QPAttr{State: next}
	mask, err := s.applyQPKeys(a, &attr)
	if err != nil {
		return Result{}, err
	}
	if err := a.unused(qpKeyNames()); err != nil {
		return Result{}, err
	}
	mask |= verbs.AttrState
	return s.modify(e, attr, mask, a.given(), a.flag("force"))
}

// modify checks and performs one transition, and records it. given names
// the attributes the user wrote, which defaults never override.
func (s *Shell) modify(e *entry, attr verbs.QPAttr, mask verbs.QPAttrMask, given map[string]bool, force bool) (Result, error) {
	cur, err := qpState(e)
	if err != nil {
		return Result{}, err
	}
	if mask&verbs.AttrAV != 0 {
		s.fillAV(e.parent.parent, &attr, given)
	}
	step := fmt.Sprintf("%s %s→%s", e.name, cur, attr.State)
	if refusal := s.check(e, cur, attr, mask); refusal != nil && !force {
		return Result{}, refusal
	}
	if err := e.qp.Modify(&attr, mask); err != nil {
		why := ""
		if refusal := s.check(e, cur, attr, mask); refusal != nil {
			why = refusal.Error()
		}
		if errors.Is(err, syscall.EINVAL) {
			return Result{}, &Error{What: "the kernel refused " + step + " with EINVAL", Why: why, Err: err,
				Fix: "fix the attributes above; `help modify` and `explain " + strings.ToLower(mask.String()) + "` say what each means"}
		}
		return Result{}, failed("modify "+step, err)
	}
	e.history = append(e.history, transition{At: time.Now(), From: cur, To: attr.State, Mask: mask})
	return Result{
		Text: fmt.Sprintf("%s is now %s (sent %s)", e.name, attr.State, mask),
		Data: map[string]any{"qp": e.name, "from": cur.String(), "to": attr.State.String(), "mask": mask.Names()},
	}, nil
}

// fillAV completes a RoCE address vector the way rc_pingpong does when a
// GID is given: global, hop limit 1, the session's source GID, port 1.
// Only fields left at zero are filled; `query` shows what was sent.
func (s *Shell) fillAV(ctx *entry, attr *verbs.QPAttr, given map[string]bool) {
	ah := &attr.AH
	if !given["ah_port"] {
		ah.PortNum = 1
	}
	if !ah.IsGlobal {
		return
	}
	if !given["hop_limit"] {
		ah.GRH.HopLimit = 1
	}
	if !given["sgid_index"] {
		if i, ok := s.sgidIndex(ctx, int(ah.PortNum)); ok {
			ah.GRH.SGIDIndex = uint8(i)
		}
	}
}

// sgidIndex is the GID index a RoCE AV sends from: the session's choice,
// else the RoCE v2 GID of an IPv4 address on the port (what routes over
// IPv4, as rc_pingpong -g picks by hand).
func (s *Shell) sgidIndex(ctx *entry, port int) (int, bool) {
	if s.opts.GIDIndex > 0 {
		return s.opts.GIDIndex, true
	}
	gids, err := ctx.ctx.GIDTable()
	if err != nil {
		return 0, false
	}
	for _, g := range gids {
		if g.Port == port && g.Type == verbs.GIDTypeRoCEv2 && g.GID.IP().To4() != nil {
			return g.Index, true
		}
	}
	return 0, false
}

// check is the state-machine check before a modify; nil means go ahead.
func (s *Shell) check(e *entry, cur verbs.QPState, attr verbs.QPAttr, mask verbs.QPAttrMask) *Error {
	if !transitionLegal(cur, attr.State) {
		return &Error{What: fmt.Sprintf("%s cannot go from %s to %s", e.name, cur, attr.State),
			Why: "that transition does not exist in the QP state machine (`diagram " + e.name + "` draws it)",
			Fix: "from " + cur.String() + " the next steps are " + legalNext(cur)}
	}
	return nil
}

func legalNext(cur verbs.QPState) string {
	var out []string
	for st := verbs.QPSReset; st <= verbs.QPSErr; st++ {
		if st != verbs.QPSSQE && transitionLegal(cur, st) {
			out = append(out, st.String())
		}
	}
	return strings.Join(out, ", ")
}

func runQuery(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], kindQP)
	if err != nil {
		return Result{}, err
	}
	// Every attribute ibv_query_qp(3) can return; unknown bits make rxe
	// answer EOPNOTSUPP.
	all := verbs.AttrState | verbs.AttrCurState | verbs.AttrEnSQDAsyncNotify | verbs.AttrAccessFlags | verbs.AttrPKeyIndex |
		verbs.AttrPort | verbs.AttrQKey | verbs.AttrAV | verbs.AttrPathMTU | verbs.AttrTimeout | verbs.AttrRetryCnt |
		verbs.AttrRNRRetry | verbs.AttrRQPSN | verbs.AttrMaxQPRdAtomic | verbs.AttrAltPath | verbs.AttrMinRNRTimer |
		verbs.AttrSQPSN | verbs.AttrMaxDestRdAtomic | verbs.AttrPathMigState | verbs.AttrCap | verbs.AttrDestQPN
	q, err := e.qp.Query(all)
	if err != nil {
		return Result{}, failed("query "+e.name, err)
	}
	rows := [][2]string{
		{"qp_num", fmt.Sprint(e.qp.Num())}, {"type", e.qp.Type().String()}, {"state", q.State.String()},
		{"port", fmt.Sprint(q.Port)}, {"pkey_index", fmt.Sprint(q.PKeyIndex)}, {"access", q.AccessFlags.String()},
		{"path_mtu", mtuText(q.PathMTU)}, {"dest_qpn", fmt.Sprint(q.DestQPN)}, {"rq_psn", fmt.Sprint(q.RQPSN)},
		{"sq_psn", fmt.Sprint(q.SQPSN)}, {"qkey", fmt.Sprintf("0x%x", q.QKey)},
		{"max_rd_atomic", fmt.Sprint(q.MaxRdAtomic)}, {"max_dest_rd_atomic", fmt.Sprint(q.MaxDestRdAtomic)},
		{"min_rnr_timer", fmt.Sprint(q.MinRNRTimer)}, {"timeout", fmt.Sprint(q.Timeout)},
		{"retry_cnt", fmt.Sprint(q.RetryCnt)}, {"rnr_retry", fmt.Sprint(q.RNRRetry)},
		{"path_mig_state", q.PathMigState.String()},
		{"dgid", q.AH.GRH.DGID.String()}, {"sgid_index", fmt.Sprint(q.AH.GRH.SGIDIndex)},
		{"hop_limit", fmt.Sprint(q.AH.GRH.HopLimit)}, {"is_global", fmt.Sprint(q.AH.IsGlobal)}, {"dlid", fmt.Sprint(q.AH.DLID)},
		{"send_wr", fmt.Sprint(q.Cap.MaxSendWR)}, {"recv_wr", fmt.Sprint(q.Cap.MaxRecvWR)},
		{"send_sge", fmt.Sprint(q.Cap.MaxSendSGE)}, {"recv_sge", fmt.Sprint(q.Cap.MaxRecvSGE)}, {"inline", fmt.Sprint(q.Cap.MaxInlineData)},
	}
	var b strings.Builder
	data := map[string]string{}
	for _, r := range rows {
		fmt.Fprintf(&b, "%-20s %s\n", r[0], r[1])
		data[r[0]] = r[1]
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

func mtuText(m verbs.MTU) string {
	if m.Bytes() == 0 {
		return "-"
	}
	return m.String()
}
