//go:build lab

package trace

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// modifyLoop is one RC QP that b.N times goes RESET→INIT→RESET: two
// ibv_modify_qp(3) calls per iteration, each through uverbs into
// ib_modify_qp_with_udata, where trace's programs sit.
func modifyLoop(b *testing.B) {
	ctx, err := verbs.Open(labkit.Env(b, "LAB_DEV"))
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
	qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: rdma.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		b.Fatal(err)
	}
	init := &rdma.QPAttr{State: rdma.QPStateInit, Port: 1}
	initMask := rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags
	reset := &rdma.QPAttr{State: rdma.QPStateReset}
	b.ResetTimer()
	for range b.N {
		if err := qp.Modify(init, initMask); err != nil {
			b.Fatal(err)
		}
		if err := qp.Modify(reset, rdma.AttrState); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/modify")
}

// BenchmarkModify is the cost of trace on the control path: the same
// modify loop without trace, then with every program attached and the
// events read and decoded as verbscope trace does. (The tracer is opened
// once, between the two: loading takes seconds under TCG.)
func BenchmarkModify(b *testing.B) {
	b.Run("untraced", modifyLoop)
	tr, err := Open(Options{Self: true})
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			e, err := tr.Read()
			if err != nil {
				return
			}
			if e.Verb == VerbModifyQP {
				n.Add(1)
			}
		}
	}()
	var modifies int64
	b.Run("traced", func(b *testing.B) {
		modifyLoop(b)
		modifies += 2 * int64(b.N)
	})
	time.Sleep(time.Second) // let the reader drain the ring buffer
	tr.Close()
	<-done
	lost, err := tr.Lost()
	if err != nil {
		b.Error(err)
	}
	b.Logf("trace saw %d modify events of %d modifies; %d events lost (ring buffer full)", n.Load(), modifies, lost)
	if n.Load() == 0 {
		b.Errorf("trace saw none of %d modifies", modifies)
	}
}
