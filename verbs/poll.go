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

// PollBatch is the most completions one Poll call takes: the size of each
// CQ's C scratch area (smaller for smaller CQs).
const PollBatch = 256

// BusyPoll polls until at least atLeast completions arrived (or wcs is
// full), ctx is done, or polling fails, and returns how many it stored.
// It spins, as a latency-bound program does, yielding the processor
// between empty polls so other goroutines still run.
func (cq *CQ) BusyPoll(ctx context.Context, wcs []WC, atLeast int) (int, error) {
	atLeast = max(1, min(atLeast, len(wcs)))
	got := 0
	for spins := 0; got < atLeast; spins++ {
		n, err := cq.Poll(wcs[got:])
		if err != nil {
			return got, err
		}
		got += n
		if n == 0 {
			if spins%64 == 63 {
				if err := ctx.Err(); err != nil {
					return got, &Error{Op: "ibv_poll_cq", Err: err, Hint: pollTimeoutHint(got)}
				}
			}
			runtime.Gosched()
		}
	}
	return got, nil
}

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
		var addr uintptr
		var getErr error
		err := rc.Read(func(uintptr) bool {
			addr, getErr = cc.h.getEvent()
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
		if cq := lookup[CQ](&cc.ctx.reg, addr); cq != nil {
			return cq, nil
		}
		// The event names a CQ whose wrapper is gone; it was acknowledged
		// anyway, so wait for the next one.
	}
}
