package verbs

import (
	"context"
	"errors"
	"os"
	"runtime"
	"syscall"
	"time"
)

// Poll takes up to len(wcs) completions off the CQ (ibv_poll_cq(3)) in
// one cgo call and returns how many it stored; 0 means the CQ is empty
// now. One call takes at most PollBatch completions.
func (cq *CQ) Poll(wcs []WC) (int, error) {
	if len(wcs) == 0 {
		return 0, nil
	}
	var n int
	err := cq.obj.use("ibv_poll_cq", func() (err error) {
		n, err = cq.h.poll(wcs)
		return err
	})
	return n, err
}

// PollBatch is the most completions one Poll call takes, the num_entries
// of its ibv_poll_cq(3): the size of each CQ's C scratch area (smaller
// for smaller CQs).
const PollBatch = 256

// BusyPoll polls until at least atLeast completions arrived (or wcs is
// full), ctx is done, or polling fails, and returns how many it stored.
// It spins, as a latency-bound program does, but inside C: one cgo
// crossing per arrival rather than per empty poll, and a sched_yield
// after thousands of empty polls, so that in a long wait the kernel work
// being waited for (rxe runs part of its protocol in softirq threads)
// gets the processor. Between spins of spinBatch polls it returns to Go
// to check ctx.
//
// It also yields to the Go scheduler every so often (runtime.Gosched):
// a goroutine that only ever spins in C is never rescheduled, so after
// 10 ms the runtime's sysmon takes its P away while it is inside a cgo
// call, and when two such spinners ping-pong (each side of a loopback)
// the one left without a P waits for the next retake: stalls of
// milliseconds, seen in the lab before this.
func (cq *CQ) BusyPoll(ctx context.Context, wcs []WC, atLeast int) (int, error) {
	atLeast = max(1, min(atLeast, len(wcs)))
	got := 0
	for got < atLeast {
		var n int
		err := cq.obj.use("ibv_poll_cq", func() (err error) {
			n, err = cq.h.spin(wcs[got:], spinBatch)
			return err
		})
		if err != nil {
			return got, err
		}
		got += n
		if n == 0 || cq.spins.Add(1)%goschedEvery == 0 {
			runtime.Gosched()
		}
		if n == 0 {
			if err := ctx.Err(); err != nil {
				return got, &Error{Op: "ibv_poll_cq", Err: err, Hint: pollTimeoutHint(got)}
			}
		}
	}
	return got, nil
}

// spinBatch is how many empty polls BusyPoll makes in C before it looks
// at its context again (well under a millisecond natively, about one
// emulated).
const spinBatch = 2048

// goschedEvery is how many successful spins BusyPoll makes between
// yields to the Go scheduler; even at tens of microseconds per spin that
// is far inside sysmon's 10 ms.
const goschedEvery = 32

// Await polls as someone waiting at a prompt needs (the verbs shell's
// poll): like BusyPoll for its first awaitSpin, so a completion on its
// way is seen at once, then once every nap, the nap doubling from
// awaitNapMin to awaitNapMax while the CQ stays empty, so a wait of
// seconds (an RNR retried without end, a peer that never answers) costs
// a sliver of a CPU instead of a whole one. A completion found later is
// late by at most awaitNapMax. It stops as BusyPoll does: at least
// atLeast completions (or wcs full), ctx done, or polling failed.
func (cq *CQ) Await(ctx context.Context, wcs []WC, atLeast int) (int, error) {
	atLeast = max(1, min(atLeast, len(wcs)))
	spinCtx, cancel := context.WithTimeout(ctx, awaitSpin)
	got, err := cq.BusyPoll(spinCtx, wcs, atLeast)
	cancel()
	if cerr := ctx.Err(); err != nil && cerr != nil {
		// Ended by the caller's context, maybe just after the spin's
		// own deadline: say the caller's reason (Close cancels).
		return got, &Error{Op: "ibv_poll_cq", Err: cerr, Hint: pollTimeoutHint(got)}
	}
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		return got, err
	}
	nap := awaitNapMin
	timer := time.NewTimer(nap)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return got, &Error{Op: "ibv_poll_cq", Err: ctx.Err(), Hint: pollTimeoutHint(got)}
		case <-timer.C:
		}
		n, err := cq.Poll(wcs[got:])
		if err != nil {
			return got, err
		}
		got += n
		if got >= atLeast {
			return got, nil
		}
		if n > 0 {
			nap = awaitNapMin
		} else {
			nap = min(2*nap, awaitNapMax)
		}
		timer.Reset(nap)
	}
}

// Await's pace: it spins for awaitSpin (thousands of round trips of a
// real device, a few of rxe's), then naps between polls, at most
// awaitNapMax: 100 wake-ups a second, 10 ms late at worst, which a
// person reading the shell's answer does not see. (Each wake-up is a
// Go timer and a cgo call: at 1 ms naps a second's wait took a third of
// a CPU in the race-built TCG guest, at 10 ms a fifth, the first spin
// included.)
const (
	awaitSpin   = 2 * time.Millisecond
	awaitNapMin = 50 * time.Microsecond
	awaitNapMax = 10 * time.Millisecond
)

func pollTimeoutHint(got int) string {
	if got == 0 {
		return "no completion arrived: is the QP in RTS, the peer's receive posted, the request signaled?"
	}
	return "fewer completions than expected arrived; unsignaled requests complete silently"
}

// ReqNotify arms the CQ to put one event on its completion channel for
// the next completion (ibv_req_notify_cq(3)); with solicitedOnly, only for
// the next solicited receive or error. It fires once: call it again
// after each event, then poll, so no completion is missed between them.
func (cq *CQ) ReqNotify(solicitedOnly bool) error {
	if cq.ch == nil {
		return &Error{Op: "ibv_req_notify_cq", Err: syscall.EINVAL, Hint: "the CQ was created without a completion channel, so there is nowhere to notify: create it with one, or poll"}
	}
	return cq.obj.use("ibv_req_notify_cq", func() error { return cq.h.reqNotify(solicitedOnly) })
}

// Wait blocks until a completion event arrives on the channel and
// returns the CQ it names (ibv_get_cq_event(3)); the CQ must have been
// armed with ReqNotify. The wait parks in Go's netpoller, so ctx can end
// it. Events are acknowledged (ibv_ack_cq_events(3)) in batches and, at
// the latest, before the CQ is destroyed. Concurrent Waits on one channel
// take turns.
func (cc *CompChannel) Wait(ctx context.Context) (*CQ, error) {
	const op = "ibv_get_cq_event"
	cc.h.waitMu.Lock()
	defer cc.h.waitMu.Unlock()
	f := cc.h.file
	if f == nil || cc.obj.isClosed() {
		return nil, &Error{Op: op, Err: ErrClosed, Hint: cc.obj.name + " was destroyed"}
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, &Error{Op: op, Err: err}
	}
	deadline, _ := ctx.Deadline()
	f.SetReadDeadline(deadline)
	woken := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(woken)
		f.SetReadDeadline(time.Unix(1, 0)) // in the past: wake the wait now
	})
	defer func() {
		if !stop() {
			<-woken // let a running wake-up finish before the next Wait resets the deadline
		}
	}()
	for {
		var cq *CQ
		var getErr error
		err := rc.Read(func(uintptr) bool {
			cq, getErr = cc.h.getEvent(&cc.ctx.reg)
			return !errors.Is(getErr, syscall.EAGAIN)
		})
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			cause := ctx.Err()
			if cause == nil { // the deadline fired a moment before ctx noticed
				cause = context.DeadlineExceeded
			}
			return nil, &Error{Op: op, Err: cause, Hint: "no completion event: was the CQ armed with ReqNotify before the work completed?"}
		case err != nil:
			return nil, &Error{Op: op, Err: ErrClosed, Hint: cc.obj.name + " was destroyed while waiting"}
		case getErr != nil:
			return nil, getErr
		}
		if cq != nil {
			return cq, nil
		}
		// The event names a CQ being destroyed or whose wrapper is gone;
		// it was acknowledged anyway, so wait for the next one.
	}
}
