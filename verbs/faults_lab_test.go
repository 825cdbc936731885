//go:build lab

package verbs

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// TestCQCloseRacesWait closes a CQ, and creates another in its place,
// between Wait reading the CQ's completion event and resolving it. The
// old code acknowledged (or counted) the event first, so the Close
// finished at once, freed the CQ, and the new CQ could take its address
// (the test makes sure it does): Wait then returned a CQ that never had
// an event (ABA), and the
// acknowledgement ran under a mutex the Close had freed. Now the event
// holds the destroy until Wait has resolved it, and an event of a CQ
// being destroyed is dropped.
func TestCQCloseRacesWait(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	ch, err := c.CreateCompChannel()
	if err != nil {
		t.Fatal(err)
	}
	// Closed after the pair's CQs, before the context (cleanups run
	// last first), by a wrapper kept reachable till then.
	t.Cleanup(func() {
		if err := ch.Close(); err != nil {
			t.Errorf("CompChannel.Close: %v", err)
		}
	})
	p := newPairOn(t, c, rdma.QPTypeRC, pairOpts{channel: ch})
	if err := p.cqA.ReqNotify(false); err != nil {
		t.Fatal(err)
	}
	wr := SendWR{Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 64), RemoteAddr: p.mrB.Addr(), RKey: p.mrB.RKey()}
	if err := p.a.PostSend([]SendWR{wr}); err != nil {
		t.Fatal(err)
	}
	oldAddr := p.cqA.h.addr()
	var newCQ *CQ
	var closeErr, createErr error
	done := make(chan struct{})
	testHookCQEvent = func() {
		testHookCQEvent = nil // once
		go func() {
			defer close(done)
			closeErr = p.cqA.Close()
			newCQ, createErr = c.CreateCQ(64, ch, 0)
			if createErr == nil && newCQ.h.addr() != oldAddr {
				// malloc may or may not hand the freed CQ's memory
				// to the new one (glibc's calloc skips the thread
				// cache a free fills): make the reuse certain.
				add(&c.reg, oldAddr, newCQ)
			}
		}()
		// Long enough for the Close and the create on a loaded TCG guest
		// (each well under 100 ms there); with the fix they wait for
		// this event's acknowledgement, so this always runs out.
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	defer func() { testHookCQEvent = nil }()
	// 10 s: past the hook's 3 s with 3x headroom; with nothing more to
	// come the Wait must end by its deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := ch.Wait(ctx)
	<-done
	if closeErr != nil || createErr != nil {
		t.Fatalf("close %v, create %v", closeErr, createErr)
	}
	t.Logf("the closed CQ was at %#x, the new one is at %#x", oldAddr, newCQ.h.addr())
	if got != nil {
		t.Fatalf("Wait returned %s (the new CQ: %v) for the event of a CQ closed under it; want no CQ", got.obj.name, got == newCQ)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait: %v, want its deadline", err)
	}
	// The channel still works for the new CQ.
	if err := newCQ.Close(); err != nil {
		t.Errorf("closing the new CQ: %v", err)
	}
}

// TestQPCloseRacesAsyncEvent closes a QP, and creates another in its
// place, between the event reader reading the QP's SQ_DRAINED and
// resolving the QP it names. The old code acknowledged the event first,
// so the Close finished at once and the new QP could take its address
// (the test makes sure it does): the event then named the new QP, which
// never drained (ABA), in the shell and in lessons' `expect event`. Now
// the event holds the destroy until it is resolved, and names the QP
// that raised it.
func TestQPCloseRacesAsyncEvent(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	c, old := p.c, p.a
	oldAddr := old.h.addr()
	var newQP *QP
	var closeErr, createErr error
	done := make(chan struct{})
	testHookAsyncEvent = func() {
		testHookAsyncEvent = nil // once
		go func() {
			defer close(done)
			closeErr = old.Close()
			newQP, createErr = p.pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: p.cqA, RecvCQ: p.cqA, Cap: old.init.Cap})
			if createErr == nil && newQP.h.addr() != oldAddr {
				// malloc may or may not hand the destroyed QP's
				// memory to the new one: make the reuse certain.
				add(&c.reg, oldAddr, newQP)
			}
		}()
		// Long enough for the Close and the create on a loaded TCG guest
		// (each well under 100 ms there); with the fix the Close waits
		// for this event's acknowledgement, so this always runs out.
		select {
		case <-done:
		case <-time.After(3 * time.Second):
		}
	}
	defer func() { testHookAsyncEvent = nil }()
	c.Events()
	if err := old.Modify(&QPAttr{State: rdma.QPStateSQD, EnSQDAsyncNotify: true}, rdma.AttrState|rdma.AttrEnSQDAsyncNotify); err != nil {
		t.Fatal(err)
	}
	ev, _ := expectEvent(t, c, rdma.EventSQDrained)
	<-done
	if closeErr != nil || createErr != nil {
		t.Fatalf("close %v, create %v", closeErr, createErr)
	}
	defer newQP.Close()
	t.Logf("the closed QP was at %#x, the new one is at %#x", oldAddr, newQP.h.addr())
	if ev.QP != old || ev.QPNum != old.Num() {
		t.Errorf("SQ_DRAINED of the closed QP %d named %v (the new QP: %v), want the QP that drained", old.Num(), ev, ev.QP == newQP)
	}
}

// TestMRMunmapFails: ibv_dereg_mr succeeds and the munmap after it
// fails. The MR is gone: Close reports the munmap, marks it closed, and a
// second Close (or the context's) never deregisters it again, which
// would pass freed memory to libibverbs.
func TestMRMunmapFails(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	pd, err := c.AllocPD()
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the context: a wrapper left to the context's Close
	// can be collected first, and the leak check reports it.
	t.Cleanup(func() {
		if err := pd.Close(); err != nil {
			t.Errorf("PD.Close: %v", err)
		}
	})
	mr, err := pd.RegMR(4096, rdma.AccessLocalWrite)
	if err != nil {
		t.Fatal(err)
	}
	mem := mr.h.mem
	defer unix.Munmap(mem) // the mapping the failed munmap left
	mr.h.mem = mem[1:]     // not page-aligned: munmap(2) refuses it
	err = mr.Close()
	if err == nil || !strings.Contains(err.Error(), "munmap") {
		t.Fatalf("Close with a failing munmap: %v, want the munmap's error", err)
	}
	if !mr.Closed() {
		t.Fatal("the MR was deregistered but is not marked closed: a later Close would deregister it again")
	}
	if err := mr.Close(); err != nil {
		t.Errorf("a second Close: %v, want nil (idempotent, nothing deregistered twice)", err)
	}
	if _, err := mr.ReadAt(make([]byte, 1), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("ReadAt after Close: %v, want ErrClosed", err)
	}
}

// TestContextCloseKeepsSurvivors: when an object of the context cannot
// be destroyed, Close leaves the device open (the survivor still points
// into the provider's memory that ibv_close_device frees) and says so;
// once the cause is gone, Close finishes.
func TestContextCloseKeepsSurvivors(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	pd, err := c.AllocPD()
	if err != nil {
		t.Fatal(err)
	}
	refuse := true
	stuck := &object{kind: "test object", rank: rankPD, destroy: func() error {
		if refuse {
			return &Error{Op: "destroy test object", Err: syscall.EBUSY}
		}
		return nil
	}}
	c.register(stuck)
	err = c.Close()
	if !errors.Is(err, syscall.EBUSY) || !strings.Contains(err.Error(), "the device stays open") {
		t.Fatalf("Close with an object that cannot go: %v, want its EBUSY and that the device stays open", err)
	}
	if c.Closed() {
		t.Fatal("the device was closed under an object that survived")
	}
	if !pd.Closed() {
		t.Error("the PD should have been destroyed before the survivor stopped the close")
	}
	if _, err := c.QueryDevice(); err != nil {
		t.Errorf("the device should still answer: %v", err)
	}
	refuse = false
	if err := c.Close(); err != nil {
		t.Fatalf("Close again: %v", err)
	}
	if !c.Closed() || !stuck.isClosed() {
		t.Error("the second Close should have closed the object and the device")
	}
}
