//go:build lab

package verbs

import (
	"context"
	"errors"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// TestAsyncEvents produces the events rxe can raise without a fault:
// SQ_DRAINED from RTS->SQD, GID_CHANGE from an address on the netdev,
// PORT_ERR and PORT_ACTIVE from the link going down and up. Each must
// arrive on the channel naming its object.
func TestAsyncEvents(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	c := p.c
	c.Events()
	if err := p.a.Modify(&QPAttr{State: rdma.QPStateSQD, EnSQDAsyncNotify: true}, rdma.AttrState|rdma.AttrEnSQDAsyncNotify); err != nil {
		t.Fatal(err)
	}
	if ev, others := expectEvent(t, c, rdma.EventSQDrained); ev.QP != p.a || ev.QPNum != p.a.Num() || len(others) != 0 {
		t.Errorf("SQ_DRAINED %v (QP %p, want %p), after %v", ev, ev.QP, p.a, others)
	}

	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("/usr/sbin/ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %v: %v\n%s", args, err, out)
		}
	}
	ip("addr", "add", "10.0.0.77/24", "dev", "veth0")
	if ev, _ := expectEvent(t, c, rdma.EventGIDChange); ev.Port != 1 {
		t.Errorf("GID_CHANGE %v, want port 1", ev)
	}
	ip("addr", "del", "10.0.0.77/24", "dev", "veth0")
	drainEvents(c, quiet) // its GID_CHANGEs

	ip("link", "set", "veth0", "down")
	t.Cleanup(func() { exec.Command("/usr/sbin/ip", "link", "set", "veth0", "up").Run() })
	if ev, _ := expectEvent(t, c, rdma.EventPortErr); ev.Port != 1 {
		t.Errorf("PORT_ERR %v, want port 1", ev)
	}
	ip("link", "set", "veth0", "up")
	if ev, _ := expectEvent(t, c, rdma.EventPortActive); ev.Port != 1 {
		t.Errorf("PORT_ACTIVE %v, want port 1", ev)
	}
	if pa, err := c.QueryPort(1); err != nil || pa.State != rdma.PortStateActive {
		t.Errorf("port after link up: %v %v", pa.State, err)
	}
	drainEvents(c, quiet)
}

// TestEventsStopOnClose checks that Context.Close stops and joins the
// reader goroutine and closes the channel.
func TestEventsStopOnClose(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	before := runtime.NumGoroutine()
	evs := c.Events()
	if c.Events() != evs {
		t.Error("Events returned a different channel on the second call")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case _, ok := <-evs:
		if ok {
			t.Error("an event arrived instead of the close")
		}
	case <-time.After(wcTimeout):
		t.Fatal("the event channel was not closed by Context.Close")
	}
	if err := c.EventsErr(); err != nil {
		t.Errorf("EventsErr after Close: %v", err)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before Events: the reader was not joined", n, before)
	}
	if _, ok := <-c.Events(); ok {
		t.Error("Events after Close must be a closed channel")
	}
}

// TestCompChannelWait sleeps on a completion channel instead of polling:
// arm, post, wait, poll, re-arm; more rounds than the acknowledgement
// batch, so destroying the CQ depends on the events being acknowledged.
func TestCompChannelWait(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	ch, err := c.CreateCompChannel()
	if err != nil {
		t.Fatal(err)
	}
	p := newPairOn(t, c, rdma.QPTypeRC, pairOpts{channel: ch})
	wcs := make([]WC, 4)
	const rounds = 40
	for i := range rounds {
		if err := p.cqA.ReqNotify(false); err != nil {
			t.Fatal(err)
		}
		wr := SendWR{WRID: uint64(i), Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 64), RemoteAddr: p.mrB.Addr(), RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		cq, err := ch.Wait(waitCtx(t))
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if cq != p.cqA {
			t.Fatalf("round %d: the event named %s, want %s", i, cq.obj.name, p.cqA.obj.name)
		}
		if n, err := cq.Poll(wcs); err != nil || n != 1 || wcs[0].WRID != uint64(i) || wcs[0].Err() != nil {
			t.Fatalf("round %d: poll %d %v %+v", i, n, err, wcs[:n])
		}
	}

	// A wait with nothing to come ends with its context.
	if err := p.cqA.ReqNotify(false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := ch.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Wait with nothing to come: %v, want DeadlineExceeded", err)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel2)
	if _, err := ch.Wait(ctx2); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait canceled: %v, want Canceled", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the two waits took %v", d)
	}
	if err := p.cqB.ReqNotify(true); err != nil {
		t.Errorf("ReqNotify(solicited only): %v", err)
	}
	if err := p.cqA.Close(); err != nil { // waits for every event to be acknowledged
		t.Fatalf("CQ.Close after %d events: %v", rounds, err)
	}
	noChannel, _ := c.CreateCQ(4, nil, 0)
	if err := noChannel.ReqNotify(false); err == nil {
		t.Error("ReqNotify on a CQ without a channel should explain there is nowhere to notify")
	}
	// Closing the channel while a Wait is parked wakes it.
	if err := p.cqB.ReqNotify(false); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := ch.Wait(context.Background()); done <- err }()
	time.Sleep(100 * time.Millisecond)
	if err := ch.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrClosed) {
			t.Errorf("Wait woken by Close: %v, want ErrClosed", err)
		}
	case <-time.After(wcTimeout):
		t.Fatal("Wait did not wake when its channel was closed")
	}
}
