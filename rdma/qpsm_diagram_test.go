package rdma

import (
	"strings"
	"testing"
)

func TestStateDiagramLine(t *testing.T) {
	upper := func(s QPState, drawn string) string {
		if s == QPStateRTS {
			return "<" + drawn + ">"
		}
		return drawn
	}
	for _, tc := range []struct {
		name string
		cur  QPState
		o    DiagramOptions
		want string
	}{
		{"fresh", QPStateReset, DiagramOptions{Next: []QPState{QPStateInit}}, "[RESET] → (INIT) → RTR → RTS"},
		{"marked off the main line", QPStateRTS, DiagramOptions{Next: []QPState{QPStateReset, QPStateSQD, QPStateErr}},
			"(RESET) → INIT → RTR → [RTS] · (SQD) · (ERR)"},
		{"failed", QPStateErr, DiagramOptions{Next: []QPState{QPStateReset}}, "(RESET) → INIT → RTR → RTS · [ERR]"},
		{"SQE", QPStateSQE, DiagramOptions{}, "RESET → INIT → RTR → RTS · [SQE]"},
		{"nothing marked", QPStateUnknown, DiagramOptions{}, "RESET → INIT → RTR → RTS"},
		{"narrow", QPStateInit, DiagramOptions{Next: []QPState{QPStateReset, QPStateRTR, QPStateErr}, Width: 26},
			"(RESET)→[INIT]→(RTR)→RTS · (ERR)"},
		{"fits exactly", QPStateInit, DiagramOptions{Width: 30}, "RESET → [INIT] → RTR → RTS"},
		{"ASCII", QPStateRTR, DiagramOptions{ASCII: true}, "RESET -> INIT -> [RTR] -> RTS"},
		{"ASCII narrow", QPStateRTR, DiagramOptions{ASCII: true, Width: 20}, "RESET->INIT->[RTR]->RTS"},
		{"ASCII off the line", QPStateErr, DiagramOptions{ASCII: true, Next: []QPState{QPStateReset}}, "(RESET) -> INIT -> RTR -> RTS | [ERR]"},
		// The marks' own width does not count.
		{"marked", QPStateRTS, DiagramOptions{Mark: upper, Width: 26}, "RESET → INIT → RTR → <[RTS]>"},
	} {
		got := StateDiagram(tc.cur, tc.o)
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The full machine keeps its columns whatever is marked.
func TestStateDiagramFull(t *testing.T) {
	for _, tc := range []struct {
		name string
		cur  QPState
		next []QPState
	}{
		{"diagram_plain", QPStateUnknown, nil},
		{"diagram_rts", QPStateRTS, LegalNext(QPStateRTS, QPTypeRC)},
		{"diagram_sqe", QPStateSQE, LegalNext(QPStateSQE, QPTypeUC)},
	} {
		lines := StateDiagram(tc.cur, DiagramOptions{Full: true, Next: tc.next})
		plain := StateDiagram(QPStateUnknown, DiagramOptions{Full: true})
		for i := range lines {
			if len([]rune(lines[i])) != len([]rune(plain[i])) {
				t.Errorf("%s: line %d moved:\n%s\n%s", tc.name, i, lines[i], plain[i])
			}
		}
		golden(t, tc.name, strings.Join(lines, "\n")+"\n")
	}
}
