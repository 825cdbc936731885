package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
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

// A kernel line shows while no frame comes (a stalled dump, a slow
// diagnosis): the lines come on their own, not riding on the next frame.
// And one long line does not take the detail column from every row: the
// rightmost free text is cut at the edge, not dropped.
func TestKernelLineWithoutFrame(t *testing.T) {
	res := make(chan inspect.Frame) // never sends: netlink has stalled
	kern := make(chan sysfsmon.KernelLine, 2)
	m := fixtureModel(t, "rxe0", "dark", 120, 40, false, func(s *Sources) { s.Res, s.Kernel = res, kern })
	m.Update(m.jumpMsg("events"))
	at := t0.Add(90 * time.Second)
	kern <- sysfsmon.KernelLine{Level: 6, Time: at, Device: "rxe0", Driver: "rdma_rxe", Text: "infiniband rxe0: " + strings.Repeat("a long line ", 20)}
	kern <- sysfsmon.KernelLine{Level: 6, Time: at, Device: "rxe0", Driver: "rdma_rxe", Text: "infiniband rxe0: set down"}
	msg := m.waitRes()()
	if _, ok := msg.(kernelMsg); !ok {
		t.Fatalf("waitRes gave %T with only kernel lines waiting, want kernelMsg", msg)
	}
	m.Update(msg)
	out := screen(m)
	if want := "[rdma_rxe] info: infiniband rxe0: set down"; !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
		t.Errorf("the events view lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "infiniband rxe0: a long line a long line") || !strings.Contains(out, "…") {
		t.Errorf("the long line is not shown cut at the edge:\n%s", out)
	}
}
