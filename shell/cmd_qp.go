package shell

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "modify", aliases: []string{"modify_qp"}, usage: "modify QP STATE [ATTR=VALUE...] [--force]",
		summary: "move a QP to a state with named attributes (ibv_modify_qp), checked first",
		help: `Sends ibv_modify_qp with IBV_QP_STATE and exactly the attributes you
name. Before it does, the shell checks the step against the kernel's own
rules (which transitions exist, which attributes each needs and allows for
this QP type, and what uverbs, the core and the driver check later) and
explains what is missing or not allowed. --force sends it anyway, to see
the kernel's own answer. A QP of this session may stand for its number:
dest_qpn=qp2. 'next' fills in the usual values for you.

examples:
  open; pd; cq; qp; qp
  modify qp1 init port=1 pkey_index=0 access_flags=remote_write
  modify qp1 rtr path_mtu=1024 dest_qpn=qp2 rq_psn=0 max_dest_rd_atomic=1 min_rnr_timer=12 dgid=10.0.0.1
  modify qp1 rts sq_psn=0 timeout=14 retry_cnt=7 rnr_retry=7 max_rd_atomic=1
  modify qp1 err`,
		flags: []flagSpec{{"force", "skip the check and let the kernel answer"}},
		pos:   []argKind{objArg(rdma.KindQP), {name: "state", items: stateSuggestions}},
		keys:  func(*Shell, []string) []keySpec { return attrKeys(rdma.FieldNames()) },
		run:   runModify,
	})
	register(&command{
		name: "next", usage: "next QP [peer=QP] [ATTR=VALUE...] [--force]",
		summary: "step a QP to its next state with the usual values (rc_pingpong's), shown and overridable",
		help: `RESET→INIT→RTR→RTS with the values ibv_rc_pingpong uses, each listed
with why it has that value. Any attribute you give overrides its default.
RTR needs the peer: peer=QP for another QP of this session (loopback), or
dest_qpn=, dgid= and rq_psn= for a remote one (or let 'dial'/'listen'
exchange them).

examples:
  open; pd; cq; qp; qp
  next qp1
  next qp1 peer=qp2
  next qp1
  next qp2; next qp2 peer=qp1 path_mtu=512     # yours overrides the default`,
		flags: []flagSpec{{"force", "skip the check and let the kernel answer"}},
		pos:   []argKind{objArg(rdma.KindQP)},
		keys: func(*Shell, []string) []keySpec {
			return append([]keySpec{{name: "peer", help: "the other QP of this session (loopback)", values: namesOf(rdma.KindQP)}}, attrKeys(rdma.FieldNames())...)
		},
		run: runNext,
	})
	register(&command{
		name: "connect", usage: "connect QP1 QP2",
		summary: "connect two QPs of this session to each other: every step for both, each shown",
		help: `The loopback way to a working pair: both QPs go RESET→INIT→RTR→RTS
with rc_pingpong's values, each pointing at the other. Every modify is
checked and printed, so this is also a worked example of the state
machine.

examples:
  open; pd; cq
  qp type=rc cq=cq1; qp type=rc cq=cq1; connect qp1 qp2`,
		pos: []argKind{objArg(rdma.KindQP), objArg(rdma.KindQP)},
		run: runConnect,
	})
	register(&command{
		name: "query", aliases: []string{"query_qp"}, usage: "query QP",
		summary: "read a QP's attributes from the provider (ibv_query_qp)",
		help: `Shows what the provider reports now, which may differ from what was
sent (rxe, for one, replaces a connected QP's hop limit with the route's).

examples:
  open; pd; cq; qp; next qp1
  query qp1`,
		pos: []argKind{objArg(rdma.KindQP)},
		run: runQuery,
	})
}

// stateSuggestions offers the states with the legal next steps first.
func stateSuggestions(s *Shell, pos []string) []Suggestion {
	legal := map[verbs.QPState]bool{}
	cur := verbs.QPState(-1)
	if len(pos) > 0 {
		if e := s.objs.byName[pos[0]]; e != nil && e.kind == rdma.KindQP {
			if st, err := e.qp.State(); err == nil {
				cur = st
				for _, n := range rdma.LegalNext(st, e.qp.Type()) {
					legal[n] = true
				}
			}
		}
	}
	var first, rest []Suggestion
	for st := rdma.QPStateReset; st <= rdma.QPStateErr; st++ {
		if st == rdma.QPStateSQE {
			continue // entered only by the hardware
		}
		// StateHelp starts with the state's name, which the suggestion
		// already shows.
		_, what, _ := strings.Cut(rdma.StateHelp(st), ": ")
		sg := Suggestion{Text: strings.ToLower(st.String()), Description: what}
		if legal[st] {
			sg.Description = "legal from " + cur.String() + " — " + what
			first = append(first, sg)
		} else {
			rest = append(rest, sg)
		}
	}
	return append(first, rest...)
}

func legalNext(cur verbs.QPState, typ verbs.QPType) string {
	var out []string
	for _, st := range rdma.LegalNext(cur, typ) {
		out = append(out, st.String())
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func runModify(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	next, ok := rdma.ParseQPState(a.pos[1])
	if !ok || next == rdma.QPStateUnknown {
		return Result{}, &Error{What: fmt.Sprintf("%q is not a QP state", a.pos[1]), Fix: "states: reset, init, rtr, rts, sqd, err"}
	}
	attr := verbs.QPAttr{State: next}
	mask, err := s.applyAttrs(a, &attr)
	if err != nil {
		return Result{}, err
	}
	return s.modify(e, attr, mask|rdma.AttrState, a.given(), a.flag("force"), "")
}

// modify checks and performs one transition, and records it. given names
// the attributes the user wrote, which defaults never override; shown is
// text to put before the outcome (next's listing of values).
func (s *Shell) modify(e *entry, attr verbs.QPAttr, mask verbs.QPAttrMask, given map[string]bool, force bool, shown string) (Result, error) {
	cur, err := qpState(e)
	if err != nil {
		return Result{}, err
	}
	if mask&rdma.AttrAV != 0 {
		s.fillAV(e.parent.parent, &attr, given)
	}
	step := fmt.Sprintf("%s %s→%s", e.name, cur, attr.State)
	env := s.checkEnv(e)
	if mask&rdma.AttrAV != 0 {
		env.Resolution = s.resolveAV(env, &attr.AH)
	}
	v := rdma.Check(cur, attr.State, e.qp.Type(), mask, &attr, env)
	if v.Known && v.Errno != 0 && !force {
		return Result{}, &Error{Output: shown, What: step + " refused before the kernel saw it",
			Why: strings.TrimSpace(v.Explain()),
			Fix: "`next " + e.name + "` takes the usual step with the usual values; --force sends this one anyway, to hear the kernel"}
	}
	if err := e.qp.Modify(&attr, mask); err != nil {
		why := strings.TrimSpace(v.Explain())
		if v.Errno == 0 {
			why = "the checker expected the kernel to accept this, so the cause is outside the kernel's modify rules (dmesg may say more)\n" + why
			if cause := resolveCause(err, mask); cause != "" {
				why = cause + "\n" + strings.TrimSpace(v.Explain())
			}
		}
		return Result{}, &Error{Output: shown, What: "the kernel refused " + step + ": " + err.Error(), Why: why, Err: err}
	}
	e.history = append(e.history, transition{At: time.Now(), From: cur, To: attr.State, Mask: mask})
	text := fmt.Sprintf("%s%s is now %s (sent %s)", shown, e.name, attr.State, mask)
	for _, w := range v.Warnings() {
		text += "\n  note: " + w.Problem
		if w.Fix != "" {
			text += " (" + w.Fix + ")"
		}
	}
	return Result{
		Text: text,
		Data: map[string]any{"qp": e.name, "from": cur.String(), "to": attr.State.String(), "mask": mask.Names()},
	}, nil
}

// checkEnv gathers what the checker needs to know about the QP's device
// and port; what cannot be read is left unknown (the checker then skips
// the rules that need it).
func (s *Shell) checkEnv(e *entry) *rdma.CheckEnv {
	q, err := e.qp.Query(rdma.AttrState | rdma.AttrPort)
	bound := err == nil && q.State != rdma.QPStateReset && q.Port != 0
	port := 1
	if bound {
		port = int(q.Port)
	}
	env := e.parent.parent.ctx.CheckEnv(port)
	if bound {
		env.QPPort, env.SQDraining = q.Port, q.SQDraining
	}
	return env
}

// fillAV completes a RoCE address vector the way rc_pingpong does when a
// GID is given: global, hop limit 1, the session's source GID, port 1.
// Only fields the user did not write are filled; `query` shows what was
// sent.
func (s *Shell) fillAV(ctx *entry, attr *verbs.QPAttr, given map[string]bool) {
	ah := &attr.AH
	if !given["ah_port"] {
		ah.PortNum = 1
	}
	if given["dgid"] && !given["is_global"] {
		ah.IsGlobal = true
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
		if g.Port == port && g.Type == rdma.GIDTypeRoCEv2 && g.GID.IP().To4() != nil {
			return g.Index, true
		}
	}
	return 0, false
}

// connParams are a QP's side of a connection: its port, GID, PSN and, if
// known, its peer.
func (s *Shell) connParams(e *entry) rdma.ConnParams {
	p := rdma.ConnParams{Port: 1, PSN: e.psn, GIDIndex: -1}
	if i, ok := s.sgidIndex(e.parent.parent, 1); ok {
		p.GIDIndex = i
	}
	if e.peer != nil {
		p.Peer = *e.peer
	}
	return p
}

// loopbackPeer is what a QP of this session would tell a peer: its number,
// its PSN and the GID it sends from.
func (s *Shell) loopbackPeer(e *entry) (rdma.Peer, error) {
	ctx := e.parent.parent
	i, ok := s.sgidIndex(ctx, 1)
	if !ok {
		return rdma.Peer{}, &Error{What: "no RoCE v2 GID with an IPv4 address on port 1 of " + ctx.name,
			Fix: "give the netdev an IPv4 address, or name sgid_index= and dgid= yourself"}
	}
	g, err := ctx.ctx.QueryGID(1, i)
	if err != nil {
		return rdma.Peer{}, failed("peer", err)
	}
	return rdma.Peer{QPN: e.qp.Num(), PSN: e.psn, GID: g.GID}, nil
}

func runNext(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	if name, ok := a.str("peer"); ok {
		pe, err := s.get(name, rdma.KindQP)
		if err != nil {
			return Result{}, err
		}
		peer, err := s.loopbackPeer(pe)
		if err != nil {
			return Result{}, err
		}
		e.peer = &peer
	}
	return s.nextStep(e, a, a.flag("force"))
}

// nextStep takes e one step along the usual walk, with defaults shown and
// the line's attributes (if any) overriding them.
func (s *Shell) nextStep(e *entry, a *args, force bool) (Result, error) {
	cur, err := qpState(e)
	if err != nil {
		return Result{}, err
	}
	step, err := rdma.DefaultStep(cur, e.qp.Type(), s.connParams(e))
	if err != nil {
		return Result{}, &Error{What: strings.TrimPrefix(err.Error(), "verbs: "), Fix: "`diagram " + e.name + "` shows where it can go; `modify` goes anywhere legal"}
	}
	given := map[string]bool{}
	if a != nil {
		for _, k := range a.keys {
			if k == "peer" {
				continue
			}
			v, _ := a.str(k)
			// Check (and resolve QP names) on a scratch copy, then let
			// the step record the override, so its listing marks it.
			scratch, m := step.Attr, step.Mask
			if err := s.setAttr(&scratch, &m, k, v); err != nil {
				return Result{}, err
			}
			if k == "dest_qpn" || k == "dest_qp_num" {
				v = fmt.Sprint(scratch.DestQPN)
			}
			if err := step.Set(k, v); err != nil {
				return Result{}, &Error{What: strings.TrimPrefix(err.Error(), "verbs: ")}
			}
			given[k] = true
		}
	}
	if step.Mask&rdma.AttrDestQPN != 0 && e.peer == nil && !given["dest_qpn"] && !force {
		return Result{}, &Error{What: fmt.Sprintf("%s→%s needs to know the peer, and %s has none yet", cur, step.To, e.name),
			Why: "RTR is where a connected QP learns who is on the other side: the peer's QP number (dest_qpn), its GID (dgid) and the PSN it starts sending with (rq_psn)",
			Fix: fmt.Sprintf("loopback: next %s peer=QP (another QP here); another host: dial or listen; or give dest_qpn=, dgid=, rq_psn= yourself", e.name)}
	}
	if e.peer != nil || given["dgid"] {
		given["dgid"] = true // the peer's GID is chosen: no further default
		given["sgid_index"] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s→%s with:\n", e.name, cur, step.To)
	for _, v := range step.Values() {
		mark := ""
		if v.Overridden {
			mark = " (yours)"
		}
		fmt.Fprintf(&b, "  %-18s %-22s %s%s\n", v.Name, v.Value, v.Why, mark)
	}
	return s.modify(e, step.Attr, step.Mask, given, force, b.String())
}

func runConnect(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	qa, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	qb, err := s.get(a.pos[1], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	if qa == qb {
		return Result{}, &Error{What: "a QP cannot be connected to itself here", Fix: "create a second QP: `qp`"}
	}
	if qa.qp.Type() != qb.qp.Type() || qa.qp.Type() == rdma.QPTypeUD {
		return Result{}, &Error{What: fmt.Sprintf("connect joins two RC or two UC QPs; these are %s and %s", qa.qp.Type(), qb.qp.Type()),
			Fix: "UD QPs are not connected: walk each with `next` and send through an address handle (`ah`)"}
	}
	for _, pair := range [][2]*entry{{qa, qb}, {qb, qa}} {
		peer, err := s.loopbackPeer(pair[1])
		if err != nil {
			return Result{}, err
		}
		pair[0].peer = &peer
	}
	var b strings.Builder
	for {
		progressed := false
		for _, e := range []*entry{qa, qb} {
			st, err := qpState(e)
			if err != nil {
				return Result{}, err
			}
			if st == rdma.QPStateRTS {
				continue
			}
			res, err := s.nextStep(e, nil, false)
			if err != nil {
				return Result{Text: b.String()}, err
			}
			b.WriteString(res.Text + "\n")
			progressed = true
		}
		if !progressed {
			break
		}
	}
	fmt.Fprintf(&b, "%s (QP %d) and %s (QP %d) are connected and in RTS: post work on them", qa.name, qa.qp.Num(), qb.name, qb.qp.Num())
	return Result{Text: b.String(), Data: map[string]any{"qps": []string{qa.name, qb.name}, "state": "RTS"}}, nil
}

func runQuery(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	// Every attribute ibv_query_qp(3) can return; bits libibverbs does
	// not define make rxe answer EOPNOTSUPP.
	var all verbs.QPAttrMask
	for _, h := range rdma.ExplainMask(^verbs.QPAttrMask(0) &^ rdma.AttrRateLimit) {
		if !strings.HasPrefix(h.Name, "0x") {
			all |= h.Bit
		}
	}
	q, err := e.qp.Query(all)
	if err != nil {
		return Result{}, failed("query "+e.name, err)
	}
	var b strings.Builder
	data := map[string]string{"qp_num": fmt.Sprint(e.qp.Num()), "type": e.qp.Type().String(), "state": q.State.String()}
	fmt.Fprintf(&b, "%-20s %d\n%-20s %s\n%-20s %s\n", "qp_num", e.qp.Num(), "type", e.qp.Type(), "state", q.State)
	for _, name := range rdma.FieldNames() {
		if name == "cur_state" || name == "rate_limit" || strings.HasPrefix(name, "alt_") {
			continue
		}
		v, err := rdma.AttrFieldValue(&q, name)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "%-20s %s\n", name, v)
		data[name] = v
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}
