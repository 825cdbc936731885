package rdma

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// DiagramOptions say how StateDiagram draws the QP state machine.
type DiagramOptions struct {
	// Next are the states a modify may take the QP to from where it is
	// (LegalNext), marked "(INIT)".
	Next []QPState
	// Full draws the whole machine over several lines: every state with
	// the ways between them and the loops (the shell's `diagram`).
	// Otherwise the drawing is one line: the bring-up's main line,
	// RESET → INIT → RTR → RTS, then SQD, SQE and ERR only when marked
	// ("[RTS] · (SQD) · (ERR)").
	Full bool
	// Width, when not 0, is the room for the one line: a line wider than
	// it drops the blanks around its arrows ("(RESET)→[INIT]→(RTR)").
	Width int
	// ASCII draws the one line with ASCII only, for a terminal without
	// "→": "->" for the arrows, "|" before the states off the main line.
	// The full drawing is box-drawing art and has no ASCII form.
	ASCII bool
	// Mark, when set, is given each state as drawn ("[RTS]", "(INIT)",
	// "RTR") and returns what to draw instead, say the dashboard's
	// colours around it; Width is measured without them.
	Mark func(s QPState, drawn string) string
}

// diagramArt is the full machine, with a slot for every state (RESET,
// INIT, RTR, RTS, SQD, SQE, ERR), each drawn two cells wider than its
// name, marked or not (" RTS ", "[RTS]", "(RTS)"), so that a mark never
// moves the art.
const diagramArt = `        ┌──────────────────── modify to RESET: from any state ────────────────┐
        ▼                                                                     │
    %s ────► %s ────► %s ────► %s ◄────► %s
                   ↺ INIT→INIT                ↺ RTS→RTS        ↺ SQD→SQD
                                                 ▲
                                       %s ───┘  (SQE: set by the hardware, UC/UD)

    modify to ERR: from any state but RESET ──► %s   (outstanding WRs flush)`

// StateDiagram draws the QP state machine of qp_state_table
// (drivers/infiniband/core/verbs.c; the states of ibv_modify_qp(3)) with
// the QP's state cur marked "[RTS]" and o.Next "(INIT)"; a cur outside
// RESET..ERR (QPStateUnknown) marks none. It returns the drawing's lines:
// one, or the whole machine's with o.Full. The shell's `diagram`, the
// dashboard's QP view and the course's lesson pane all draw it here.
func StateDiagram(cur QPState, o DiagramOptions) []string {
	// drawn is a state as the drawing shows it, and whether it is marked.
	drawn := func(s QPState, pad string) (string, bool) {
		switch {
		case s == cur:
			return "[" + s.String() + "]", true
		case slices.Contains(o.Next, s):
			return "(" + s.String() + ")", true
		}
		return pad + s.String() + pad, false
	}
	mark := func(s QPState, text string) string {
		if o.Mark == nil {
			return text
		}
		return o.Mark(s, text)
	}
	if o.Full {
		slots := make([]any, len(QPStates))
		for i, s := range QPStates {
			text, _ := drawn(s, " ")
			slots[i] = mark(s, text)
		}
		return strings.Split(fmt.Sprintf(diagramArt, slots...), "\n")
	}
	// The main line and the states off it that are marked, as drawn and
	// plain (to measure).
	var main, tail, plainMain, plainTail []string
	for _, s := range QPStates {
		text, marked := drawn(s, "")
		switch {
		case s <= QPStateRTS: // the bring-up, RESET to RTS
			main, plainMain = append(main, mark(s, text)), append(plainMain, text)
		case marked:
			tail, plainTail = append(tail, mark(s, text)), append(plainTail, text)
		}
	}
	arrow, off := "→", " · "
	if o.ASCII {
		arrow, off = "->", " | "
	}
	if o.Width == 0 || utf8.RuneCountInString(diagramLine(plainMain, plainTail, " "+arrow+" ", off)) <= o.Width {
		arrow = " " + arrow + " "
	}
	return []string{diagramLine(main, tail, arrow, off)}
}

// diagramLine joins the main line's states with arrow and adds the
// others after it, each after off: "[RESET] → (INIT) → RTR → RTS · (ERR)".
func diagramLine(main, others []string, arrow, off string) string {
	line := strings.Join(main, arrow)
	for _, s := range others {
		line += off + s
	}
	return line
}
