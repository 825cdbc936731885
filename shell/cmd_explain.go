package shell

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"syscall"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "explain", usage: "explain WORD",
		summary: "explain an errno, a completion status, an async event, a QP state, an attribute mask or a counter",
		help: `examples:
  explain EINVAL
  explain REM_ACCESS_ERR
  explain 13              # a number is tried as an errno, a WC status and a mask
  explain QP_FATAL
  explain rtr
  explain 0x1a1           # an ibv_qp_attr_mask
  explain dest_qpn
  explain rnr_nak_retry_err       # a counter of hw_counters/ or counters/
  explain mlx5/out_of_buffer      # a counter of one driver`,
		pos: []argKind{{name: "word"}},
		run: runExplain,
	})
	register(&command{
		name: "diagram", usage: "diagram [QP]",
		summary: "draw the QP state machine, marking a QP's state and its legal next steps",
		help: `examples:
  diagram
  open; pd; cq; qp; diagram qp1`,
		pos: []argKind{objArg(rdma.KindQP)},
		run: runDiagram,
	})
}

func meaningText(m rdma.Meaning, kind string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", m.Name, kind, m.What)
	if m.Causes != "" {
		fmt.Fprintf(&b, "\n  usual causes: %s", m.Causes)
	}
	if m.Check != "" {
		fmt.Fprintf(&b, "\n  check: %s", m.Check)
	}
	return b.String()
}

// maskText lists a mask's bits with what each attribute is.
func maskText(m verbs.QPAttrMask) string {
	var b strings.Builder
	fmt.Fprintf(&b, "0x%x = %s", uint32(m), m)
	for _, h := range rdma.ExplainMask(m) {
		fmt.Fprintf(&b, "\n  %-19s %s", h.Name, h.What)
	}
	return b.String()
}

func wcText(st verbs.WCStatus, kind string) string {
	h := st.Hint()
	if st == rdma.WCSuccess {
		h = "the work request completed"
	}
	return fmt.Sprintf("%s (%s): %s", st, kind, h)
}

// errnoByName maps EINVAL-style names to errnos, for explain.
func errnoByName(w string) (syscall.Errno, bool) {
	for e := syscall.Errno(1); e < 134; e++ {
		if m := rdma.ErrnoMeaning(e); strings.EqualFold(m.Name, w) {
			return e, true
		}
	}
	return 0, false
}

func runExplain(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	w := a.pos[0]
	var parts []string
	data := map[string]any{"word": w}
	if e, ok := errnoByName(w); ok {
		parts = append(parts, meaningText(rdma.ErrnoMeaning(e), fmt.Sprintf("errno %d", int(e))))
	}
	if st, ok := rdma.ParseWCStatus(w); ok {
		parts = append(parts, wcText(st, fmt.Sprintf("completion status %d", int(st))))
	}
	if ev, ok := rdma.ParseEventType(w); ok {
		parts = append(parts, meaningText(ev.Meaning(), fmt.Sprintf("async event %d", int(ev))))
	}
	if st, ok := rdma.ParseQPState(w); ok && st != rdma.QPStateUnknown {
		parts = append(parts, fmt.Sprintf("%s (QP state %d): %s\n  next steps from here (RC): %s", st, int(st), rdma.StateHelp(st), legalNext(st, rdma.QPTypeRC)))
	}
	if bit, err := rdma.FieldBit(normKey(w)); err == nil {
		parts = append(parts, fmt.Sprintf("%s (modify attribute, mask bit IBV_QP_%s): %s", normKey(w), bit, fieldHelp(normKey(w))))
		if h, ok := rdma.HelpFor(bit); ok && h.Typical != "" {
			parts[len(parts)-1] += "\n  typical: " + h.Typical
		}
	} else if bit, ok := rdma.ParseQPAttrMaskBit(w); ok {
		parts = append(parts, maskText(bit))
	}
	if n, err := parseUint(w); err == nil && n < 1<<32 {
		if n > 0 && n < 134 {
			e := syscall.Errno(n)
			parts = append(parts, meaningText(rdma.ErrnoMeaning(e), fmt.Sprintf("as errno %d", n)))
		}
		if n <= uint64(rdma.WCTMRndvIncomplete) {
			parts = append(parts, wcText(verbs.WCStatus(n), fmt.Sprintf("as completion status %d", n)))
		}
		mask := verbs.QPAttrMask(n)
		parts = append(parts, "as an attribute mask: "+maskText(mask))
		data["mask"] = mask.Names()
	}
	parts = append(parts, counterParts(w)...)
	if len(parts) == 0 {
		return Result{}, &Error{What: "nothing known as " + strconv.Quote(w),
			Fix: "try an errno (EINVAL), a completion status (REM_ACCESS_ERR), an event (QP_FATAL), a state (rtr), an attribute (dest_qpn), a counter (rnr_nak_retry_err, mlx5/out_of_buffer) or a number"}
	}
	text := strings.Join(parts, "\n\n")
	data["text"] = text
	return Result{Text: text, Data: data}, nil
}

func runDiagram(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	cur := rdma.QPStateUnknown // no QP named: nothing marked
	who := ""
	typ := rdma.QPTypeRC
	if len(a.pos) == 1 {
		e, err := s.get(a.pos[0], rdma.KindQP)
		if err != nil {
			return Result{}, err
		}
		if cur, err = qpState(e); err != nil {
			return Result{}, err
		}
		who, typ = e.name, e.qp.Type()
	}
	next := rdma.LegalNext(cur, typ) // none for QPStateUnknown
	text := strings.Join(rdma.StateDiagram(cur, rdma.DiagramOptions{Full: true, Next: next}), "\n")
	data := map[string]any{}
	if who != "" {
		text += fmt.Sprintf("\n\n    %s is [%s]; (marked) states are legal next steps: %s", who, cur, legalNext(cur, typ))
		data["qp"], data["state"], data["next"] = who, cur.String(), strings.Split(legalNext(cur, typ), ", ")
	}
	return Result{Text: text, Data: data}, nil
}
