package ui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/themes"
)

// The QP view draws the shell's QP on the state machine as the lesson
// pane does: [its state], (the legal next steps); "->" in an ASCII theme.
func TestQPViewDiagram(t *testing.T) {
	ascii, err := themes.Load("dark", themes.Options{Dark: true, NoColor: true, ASCII: true})
	if err != nil {
		t.Fatal(err)
	}
	steps := []front.Step{{To: rdma.QPStateReset, Legal: true}, {To: rdma.QPStateInit}, {To: rdma.QPStateRTS, Legal: true}, {To: rdma.QPStateSQD, Legal: true}, {To: rdma.QPStateErr, Legal: true}}
	for _, tc := range []struct {
		th    *themes.Theme
		state rdma.QPState
		next  []front.Step
		want  string
	}{
		{mustLoad(t, "dark", true), rdma.QPStateRTS, steps, "(RESET) → INIT → RTR → [RTS] · (SQD) · (ERR)"},
		{ascii, rdma.QPStateRTS, steps, "(RESET) -> INIT -> RTR -> [RTS] | (SQD) | (ERR)"},
		{mustLoad(t, "dark", true), rdma.QPStateErr, nil, "RESET → INIT → RTR → RTS · [ERR]"},
		{mustLoad(t, "dark", true), rdma.QPStateUnknown, nil, "RESET → INIT → RTR → RTS"},
	} {
		v := &objectView{c: &common{theme: tc.th}}
		if got := ansi.Strip(v.diagram(tc.state, tc.next)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.state, got, tc.want)
		}
	}
}
