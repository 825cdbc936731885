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

// coreQPs is the verbs core's side of the comparison: a context, a PD
// and a CQ on dev, and RC QPs with the shell's default caps, each moved
// to INIT with the attributes `next` sends.
type coreQPs struct {
	ctx *verbs.Context
	pd  *verbs.PD
	cq  *verbs.CQ
}

func newCoreQPs(b *testing.B, dev string) *coreQPs {
	ctx, err := verbs.Open(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ctx.Close() }) // destroys the QPs, CQ and PD too
	pd, err := ctx.AllocPD()
	if err != nil {
		b.Fatal(err)
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	return &coreQPs{ctx: ctx, pd: pd, cq: cq}
}

// create makes n more QPs and moves each to INIT.
func (c *coreQPs) create(b *testing.B, n int) {
	init := rdma.QPAttr{State: rdma.QPStateInit, Port: 1}
	mask := rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags
	for range n {
		qp, err := c.pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: c.cq, RecvCQ: c.cq, SigAll: true,
			Cap: verbs.QPCap{MaxSendWR: 16, MaxRecvWR: 16, MaxSendSGE: 1, MaxRecvSGE: 1}})
		if err != nil {
			b.Fatal(err)
		}
		if err := qp.Modify(&init, mask); err != nil {
			b.Fatal(err)
		}
	}
}

// scriptQPs is the shell's side: a session that opened dev and made a PD
// and a CQ, and the QPs its script created so far.
type scriptQPs struct {
	s *Shell
	n int
}

func newScriptQPs(b *testing.B, dev string) *scriptQPs {
	q := &scriptQPs{s: New(Options{Device: dev})}
	b.Cleanup(func() {
		if err := q.s.Close(); err != nil {
			b.Error(err)
		}
	})
	q.run(b, "open; pd; cq size=16")
	return q
}

// run runs script lines as the script mode does: through front.Lines and
// Exec, one command after the other.
func (q *scriptQPs) run(b *testing.B, script string) {
	for _, l := range front.Lines(script) {
		if _, err := q.s.Exec(context.Background(), l.Text); err != nil {
			b.Fatalf("%s: %v", l.Text, err)
		}
	}
}

// create runs the script's next n QPs: `qp`, then `next qpN` (RESET→INIT).
func (q *scriptQPs) create(b *testing.B, n int) {
	for range n {
		q.n++
		q.run(b, fmt.Sprintf("qp; next qp%d", q.n))
	}
}

// timed is how long fn took.
func timed(fn func()) time.Duration {
	start := time.Now()
	fn()
	return time.Since(start)
}

// BenchmarkScript5kQPs is the shell against the verbs core on rxe0 in the
// same run: 5,000 QPs created and moved to INIT by a script (10,000
// commands, `qp` and `next qpN` for each) and by the core's own calls.
// The two take turns, 50 QPs each, so a change in the machine's load
// falls on both alike; the core warms the process and the driver first,
// untimed. It reports the script's commands and QPs per second, the
// core's QPs per second, how many times slower the script is, and what a
// QP costs the script (and the core) among the first 500 and among the
// last 500: the same, when a command costs what it changes and not what
// the session holds (last/first-vs-core near 1).
func BenchmarkScript5kQPs(b *testing.B) {
	labkit.Clean(b)
	dev := labkit.Env(b, "LAB_DEV")
	const total, turn, window = 5000, 50, 500
	var core, script, first, last, coreFirst, coreLast time.Duration
	for range b.N {
		warm := newCoreQPs(b, dev)
		warm.create(b, turn)
		warm.ctx.Close()
		c, q := newCoreQPs(b, dev), newScriptQPs(b, dev)
		for t := range total / turn {
			dc := timed(func() { c.create(b, turn) })
			dq := timed(func() { q.create(b, turn) })
			core, script = core+dc, script+dq
			if t < window/turn {
				first, coreFirst = first+dq, coreFirst+dc
			}
			if t >= (total-window)/turn {
				last, coreLast = last+dq, coreLast+dc
			}
		}
		if st := q.s.State(); st.Len() != total+3 {
			b.Fatalf("the session holds %d objects, want %d", st.Len(), total+3)
		}
		if qp, _ := q.s.State().Object(fmt.Sprintf("qp%d", total)); qp.State != rdma.QPStateInit {
			b.Fatalf("the last QP is %+v, want it in INIT", qp)
		}
		// Both are closed again by the cleanups (after a Fatal too);
		// closing is idempotent.
		c.ctx.Close()
		if err := q.s.Close(); err != nil {
			b.Error(err)
		}
	}
	qps := float64(total * b.N)
	perQP := func(d time.Duration) float64 { return d.Seconds() * 1000 / float64(window*b.N) }
	b.ReportMetric(qps/core.Seconds(), "core-QPs/s")
	b.ReportMetric(qps/script.Seconds(), "script-QPs/s")
	b.ReportMetric(2*qps/script.Seconds(), "commands/s")
	b.ReportMetric(script.Seconds()/core.Seconds(), "script/core")
	b.ReportMetric(perQP(first), "first500-ms/QP")
	b.ReportMetric(perQP(last), "last500-ms/QP")
	b.ReportMetric(last.Seconds()/first.Seconds(), "last/first")
	b.ReportMetric(coreLast.Seconds()/coreFirst.Seconds(), "core-last/first")
	// The machine's load moves both alike: the script's growth over the
	// core's is what the session's size costs (1 when nothing).
	b.ReportMetric((last.Seconds()/first.Seconds())/(coreLast.Seconds()/coreFirst.Seconds()), "last/first-vs-core")
}
