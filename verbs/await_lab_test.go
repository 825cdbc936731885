//go:build lab

package verbs

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// TestAwait: a receive that completes a while after Await began is
// returned, and an Await on a CQ that stays empty ends with its context,
// having used a fraction of the CPU a BusyPoll of the same wait uses.
func TestAwait(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	t.Cleanup(func() { p.close() })

	t.Run("a late completion", func(t *testing.T) {
		if err := p.b.PostRecv([]RecvWR{{WRID: 7, SGEs: sge(p.mrB, 0, 64)}}); err != nil {
			t.Fatal(err)
		}
		sent := make(chan error, 1)
		go func() {
			time.Sleep(300 * time.Millisecond) // past the spin: a nap sees it
			sent <- p.a.PostSend([]SendWR{{WRID: 1, Opcode: rdma.WRSend, SGEs: sge(p.mrA, 0, 64)}})
		}()
		wcs := make([]WC, 4)
		n, err := p.cqB.Await(waitCtx(t), wcs, 1)
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		if err != nil || n != 1 || wcs[0].WRID != 7 || wcs[0].Status != rdma.WCSuccess {
			t.Fatalf("Await: %d completions %+v, %v; want the receive, wrid 7", n, wcs[:n], err)
		}
	})

	t.Run("an empty CQ costs little", func(t *testing.T) {
		const wait = time.Second
		wcs := make([]WC, 4)
		cpu := func(f func()) time.Duration {
			var a, b syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &a)
			f()
			syscall.Getrusage(syscall.RUSAGE_SELF, &b)
			return time.Duration(b.Utime.Nano() + b.Stime.Nano() - a.Utime.Nano() - a.Stime.Nano())
		}
		var err error
		awaited := cpu(func() {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			_, err = p.cqA.Await(ctx, wcs, 1)
		})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Await on an empty CQ: %v, want its context's deadline", err)
		}
		spun := cpu(func() {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			p.cqA.BusyPoll(ctx, wcs, 1)
		})
		slept := cpu(func() { time.Sleep(wait) })
		t.Logf("a %v wait on an empty CQ: Await used %v of CPU, BusyPoll %v (the process asleep: %v)", wait, awaited, spun, slept)
		// BusyPoll keeps a CPU busy for the whole wait; Await, which
		// naps up to 10 ms at a time, a fifth of that race-built under
		// TCG: under two thirds is 3x headroom, and a spin fails it.
		if awaited > spun*2/3 {
			t.Errorf("Await used %v of CPU in a %v wait, BusyPoll %v: want under two thirds", awaited, wait, spun)
		}
	})
}
