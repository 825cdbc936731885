//go:build lab

package shell

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

// scriptQPs is how many QPs the script benchmark creates: enough that a
// session whose every command costs what it holds would show it (the
// first 1,200 QPs of such a session took minutes in the lab).
const scriptQPs = 5000

// scriptWindow is how many QPs at the start and at the end of the script
// are timed apart, to compare what the first and the last cost.
const scriptWindow = 500

// coreCreateInit creates n RC QPs on dev with the shell's default caps
// and moves each to INIT with the attributes `next` sends, straight
// through the verbs core, and returns the QPs per second. Closing the
// context destroys them, untimed.
func coreCreateInit(b *testing.B, dev string, n int) float64 {
	ctx, err := verbs.Open(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer ctx.Close()
	pd, err := ctx.AllocPD()
	if err != nil {
		b.Fatal(err)
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	init := rdma.QPAttr{State: rdma.QPStateInit, Port: 1}
	mask := rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags
	start := time.Now()
	for range n {
		qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, SigAll: true,
			Cap: verbs.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1}})
		if err != nil {
			b.Fatal(err)
		}
		if err := qp.Modify(&init, mask); err != nil {
			b.Fatal(err)
		}
	}
	return float64(n) / time.Since(start).Seconds()
}

// shellScript runs a script that opens dev, makes a PD and a CQ, then
// creates n QPs, each moved to INIT (`qp`, then `next qpN`), as the
// script mode runs it: line by line through front.Lines and Exec. It
// returns how long each QP's two commands took.
func shellScript(b *testing.B, dev string, n int) []time.Duration {
	s := New(Options{Device: dev})
	defer func() {
		if err := s.Close(); err != nil {
			b.Error(err)
		}
	}()
	exec := func(line string) {
		for _, l := range front.Lines(line) {
			if _, err := s.Exec(context.Background(), l.Text); err != nil {
				b.Fatalf("%s: %v", l.Text, err)
			}
		}
	}
	exec("open; pd; cq size=16")
	each := make([]time.Duration, n)
	for i := range n {
		start := time.Now()
		exec(fmt.Sprintf("qp; next qp%d", i+1))
		each[i] = time.Since(start)
	}
	if st := s.State(); st.Len() != n+3 {
		b.Fatalf("the session holds %d objects, want %d", st.Len(), n+3)
	}
	if qp, _ := s.State().Object(fmt.Sprintf("qp%d", n)); qp.State != "INIT" {
		b.Fatalf("the last QP is %+v, want it in INIT", qp)
	}
	return each
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

// BenchmarkScript5kQPs is the shell against the verbs core on rxe0 in the
// same run: 5,000 QPs created and moved to INIT by a script (10,000
// commands) and by the core's own calls. It reports the script's
// commands and QPs per second, the core's QPs per second, how many times
// slower the script is, and what a QP's two commands cost among the
// first 500 and among the last 500 (the same, when a command costs what
// it changes and not what the session holds).
func BenchmarkScript5kQPs(b *testing.B) {
	labkit.Clean(b)
	dev := labkit.Env(b, "LAB_DEV")
	var core, shell, first, last float64
	for range b.N {
		core += coreCreateInit(b, dev, scriptQPs)
		each := shellScript(b, dev, scriptQPs)
		shell += float64(scriptQPs) / sum(each).Seconds()
		first += sum(each[:scriptWindow]).Seconds() * 1000 / scriptWindow
		last += sum(each[scriptQPs-scriptWindow:]).Seconds() * 1000 / scriptWindow
	}
	n := float64(b.N)
	b.ReportMetric(core/n, "core-QPs/s")
	b.ReportMetric(shell/n, "script-QPs/s")
	b.ReportMetric(2*shell/n, "commands/s")
	b.ReportMetric(core/shell, "core/script")
	b.ReportMetric(first/n, "first500-ms/QP")
	b.ReportMetric(last/n, "last500-ms/QP")
	b.ReportMetric(last/first, "last/first")
}
