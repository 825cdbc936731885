package verbs

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// AsyncEvent is one asynchronous event of a device context, struct
// ibv_async_event from ibv_get_async_event(3): a QP, CQ or SRQ went wrong
// or reached a milestone, or a port changed state. It is acknowledged
// (ibv_ack_async_event(3)) as soon as its fields are copied and the
// object it names resolved, before it reaches the channel.
type AsyncEvent struct {
	Type EventType
	// QPNum is the QP's number for QP events (QP_FATAL, QP_REQ_ERR,
	// QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG*, QP_LAST_WQE_REACHED).
	QPNum uint32
	// QP, CQ and SRQ are the Go objects the event names, when this
	// package created them and they are still reachable; otherwise nil.
	QP  *QP
	CQ  *CQ
	SRQ *SRQ
	// Port is the port number for port events (PORT_ACTIVE, PORT_ERR,
	// LID_CHANGE, PKEY_CHANGE, SM_CHANGE, CLIENT_REREGISTER, GID_CHANGE).
	Port int
}

// String describes the event the way a log line would: the
// ibv_event_type name and the object it names.
func (e AsyncEvent) String() string {
	switch {
	case e.QPNum != 0 || e.QP != nil:
		return fmt.Sprintf("%s on QP %d", e.Type, e.QPNum)
	case e.CQ != nil:
		return fmt.Sprintf("%s on %s", e.Type, e.CQ.obj.name)
	case e.SRQ != nil:
		return fmt.Sprintf("%s on %s", e.Type, e.SRQ.obj.name)
	case e.Port != 0:
		return fmt.Sprintf("%s on port %d", e.Type, e.Port)
	}
	return e.Type.String()
}

// rawAsyncEvent is an event as the platform layer reads it: C addresses
// still to be mapped to wrappers.
type rawAsyncEvent struct {
	typ        EventType
	port       int
	qpNum      uint32
	qp, cq, sq uintptr // sq: the SRQ
}

// resolve maps the event's C addresses to the wrappers reg holds. The
// platform layer calls it before it acknowledges the event, while the
// addresses cannot have been reused.
func (raw rawAsyncEvent) resolve(reg *registry) AsyncEvent {
	return AsyncEvent{Type: raw.typ, QPNum: raw.qpNum, Port: raw.port,
		QP: lookup[QP](reg, raw.qp), CQ: lookup[CQ](reg, raw.cq), SRQ: lookup[SRQ](reg, raw.sq)}
}

// eventBuffer is how many events wait in the channel before the reader
// stops reading (and the kernel queues them instead).
const eventBuffer = 64

// eventReader is the goroutine that reads a context's async fd through
// Go's netpoller and forwards decoded events.
type eventReader struct {
	ch       chan AsyncEvent
	stop     chan struct{}
	done     chan struct{}
	file     *os.File // a dup of the async fd; nil when no reader runs
	stopOnce sync.Once
	err      error // why the reader ended early; read after done is closed
}

// Events returns the context's async events (ibv_get_async_event(3)).
// The first call starts a goroutine that waits on the context's async fd
// in Go's netpoller; Close stops it and closes the channel. Read the
// channel promptly: while it is full, events wait in the kernel. Events
// that happened before the first call are still delivered (the kernel
// queues them).
func (c *Context) Events() <-chan AsyncEvent {
	c.evOnce.Do(c.startEvents)
	return c.events.ch
}

// EventsErr says why the Events channel closed while the context was
// still open (ibv_get_async_event(3) failed, e.g. the device went away,
// or the async fd could not be watched); nil if it is running or was
// closed by Close.
func (c *Context) EventsErr() error {
	c.evOnce.Do(c.noEvents)
	select {
	case <-c.events.done:
		return c.events.err
	default:
		return nil
	}
}

// noEvents installs a reader that never ran (after Close, or for
// EventsErr before Events).
func (c *Context) noEvents() {
	r := &eventReader{ch: make(chan AsyncEvent), done: make(chan struct{})}
	close(r.ch)
	close(r.done)
	c.events = r
}

func (c *Context) startEvents() {
	c.mu.Lock()
	h := c.h
	c.mu.Unlock()
	if h == nil {
		c.noEvents()
		return
	}
	f, err := h.asyncFile()
	if err != nil {
		c.noEvents()
		c.events.err = err
		return
	}
	r := &eventReader{ch: make(chan AsyncEvent, eventBuffer), stop: make(chan struct{}), done: make(chan struct{}), file: f}
	c.events = r
	go c.readEvents(h, r)
}

// readEvents is the reader goroutine.
func (c *Context) readEvents(h *ctxHandle, r *eventReader) {
	defer close(r.done)
	defer close(r.ch)
	rc, err := r.file.SyscallConn()
	if err != nil {
		r.err = err
		return
	}
	for {
		var ev AsyncEvent
		var getErr error
		// The callback runs when the fd is readable; returning false
		// parks the goroutine in the netpoller until it is again.
		err := rc.Read(func(uintptr) bool {
			ev, getErr = h.getAsyncEvent(&c.reg)
			return !errors.Is(getErr, syscall.EAGAIN)
		})
		if err != nil { // the file was closed: Context.Close is stopping us
			return
		}
		if getErr != nil {
			r.err = getErr
			return
		}
		select {
		case r.ch <- ev:
		case <-r.stop:
			return
		}
	}
}

// stopEvents stops and joins the reader; Close calls it before closing
// the device. A later Events call gets a closed channel.
func (c *Context) stopEvents() {
	c.evOnce.Do(c.noEvents)
	r := c.events
	if r.file == nil {
		return
	}
	r.stopOnce.Do(func() {
		close(r.stop)
		r.file.Close() // wakes the netpoller wait
		<-r.done
	})
}
