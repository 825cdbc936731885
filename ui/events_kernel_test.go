package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/sysfsmon"
)

// The RDMA drivers' kernel log lines join the events, with the QP a
// line names linked on its device, and errors marked.
func TestKernelLinesInEvents(t *testing.T) {
	m := fixtureModel(t, "rxe0", "dark", 160, 48, false)
	ch := make(chan sysfsmon.KernelLine, 2)
	at := t0.Add(90 * time.Second)
	ch <- sysfsmon.KernelLine{Level: 3, Time: at, Device: "rxe0", Driver: "rdma_rxe", Text: "rxe0: qp#17 moved to error state"}
	ch <- sysfsmon.KernelLine{Level: 6, Time: at, Driver: "ib_core", Text: "ib_core: \x1b[2Jhello"}
	m.resBuilder.recordKernel(drainKernel(ch))
	f := recordedFrames(t, "idle", "rc-init", "rc-rts")
	m.Update(resMsg{m.resBuilder.build(f[len(f)-1], front.State{})})
	m.Update(m.jumpMsg("events"))
	out := screen(m)
	for _, want := range []string{"kernel   rxe0 qp 17 [rdma_rxe] err: rxe0: qp#17 moved to error state", `[ib_core]  info: ib_core: \x1b[2Jhello`} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the events view lacks %q:\n%s", want, out)
		}
	}
	tb := m.find("events").table
	marked := false
	for _, r := range tb.rows {
		if r.Cells[1] == "kernel" && r.Mark == markError {
			marked = true
		}
	}
	if !marked {
		t.Error("the kernel's error line is not marked as an error")
	}
	// The QP's detail shows the line.
	m.Update(m.jumpMsg("qp"))
	m.find("qp").table.SetFilter([]string{"lqpn=17"})
	send(m, "enter")
	if out := screen(m); !strings.Contains(out, "the kernel log on this QP") || !strings.Contains(out, "err: rxe0: qp#17 moved to error state") {
		t.Errorf("the QP's detail lacks its kernel line:\n%s", out)
	}
}
