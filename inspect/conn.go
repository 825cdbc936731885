package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/mdlayher/netlink"
)

// Conn is a connection to the kernel's RDMA netlink device interface
// (nldev, drivers/infiniband/core/nldev.c), the same channel iproute2's
// rdma tool uses. It is safe for concurrent use: a mutex serializes
// requests, since nldev replies are read in order, and Close does not wait
// behind it: it closes the socket under a request in progress, which then
// fails with ErrClosed.
type Conn struct {
	// mu serializes requests and guards the fields below it.
	mu sync.Mutex
	// procRoot is where comm names are read: procRoot/PID/comm.
	procRoot string
	// sizeHint remembers how many objects of each kind the last dump
	// of a device returned, to allocate the next result once.
	sizeHint map[string]int
	// tap, when set, sees every request as it is sent (reply nil) and
	// every reply message as it arrives (see Record).
	tap func(req netlink.Message, reply *netlink.Message)

	// sock guards the socket's life, apart from mu so that Close never
	// waits for a dump.
	sock struct {
		sync.Mutex
		nl     *netlink.Conn
		closed bool
		// broken is set when a request was interrupted mid-reply: the
		// rest of its reply (or the kernel's dump in progress, which
		// makes a new dump fail with EBUSY) would be read by the next
		// request, so the socket is replaced first.
		broken bool
		// redial opens a new socket (nil for a NewConn).
		redial func() (*netlink.Conn, error)
	}
}

// recvBufferSize is the buffer every recvmsg gets. Its size matters to
// the kernel, not only to us: netlink_recvmsg (net/netlink/af_netlink.c)
// remembers the largest length a reader offered, capped near 32 KiB, and
// netlink_dump sizes each skb of a dump by it. nldev's dumpit
// (res_get_common_dumpit in drivers/infiniband/core/nldev.c) walks the
// object table from the start again for every skb, so a reader that peeks
// and then offers exactly one small skb's worth (mdlayher/netlink's
// default) keeps skbs at one page and makes a 10,000-QP dump quadratic.
const recvBufferSize = 64 << 10

// Dial opens a NETLINK_RDMA socket (netlink(7), protocol 20), as
// `rdma` does in rd_send_msg (iproute2 rdma/utils.c). On a kernel without
// RDMA the error wraps ErrNoRDMA and syscall.EPROTONOSUPPORT.
func Dial() (*Conn, error) {
	nl, err := dialRDMA()
	if err != nil {
		return nil, explainErrno("dial", err)
	}
	c := NewConn(nl)
	c.sock.redial = dialRDMA
	return c, nil
}

func dialRDMA() (*netlink.Conn, error) {
	return netlink.Dial(netlinkRDMA, &netlink.Config{MessageBufferSize: recvBufferSize})
}

// NewConn wraps an open netlink connection, such as one from
// nltest.Dial that fakes the kernel in tests. Comm names of user objects
// come from /proc; see SetProcRoot. A request interrupted by its context
// leaves such a Conn unusable (it cannot open a new socket); one from Dial
// opens a new socket for the next request.
func NewConn(nl *netlink.Conn) *Conn {
	c := &Conn{procRoot: "/proc"}
	c.sock.nl = nl
	return c
}

// SetProcRoot makes the Conn read /PROC/PID/comm under root instead of
// /proc (for tests, or a host /proc mounted elsewhere).
func (c *Conn) SetProcRoot(root string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.procRoot = root
}

// freshComm returns an empty comm cache for one call, so every call sees
// the processes as they are now.
func (c *Conn) freshComm() *commCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	return newCommCache(c.procRoot)
}

// Close closes the socket, interrupting a request in progress (which then
// fails with ErrClosed); it does not wait for it. It is safe to call more
// than once and from any goroutine.
func (c *Conn) Close() error {
	c.sock.Lock()
	defer c.sock.Unlock()
	if c.sock.closed {
		return nil
	}
	c.sock.closed = true
	// netlink.Conn.Close takes no lock: it is meant to interrupt a
	// blocked receive, which mdlayher/socket's netpoller integration
	// wakes with an error.
	return c.sock.nl.Close()
}

// socket returns the socket for the next request, replacing one that an
// interrupted request left out of step.
func (c *Conn) socket(op string) (*netlink.Conn, error) {
	c.sock.Lock()
	defer c.sock.Unlock()
	switch {
	case c.sock.closed:
		return nil, opError(op, ErrClosed, nil)
	case !c.sock.broken:
		return c.sock.nl, nil
	case c.sock.redial == nil:
		return nil, opError(op+": an earlier request was interrupted mid-reply and this connection cannot open a new socket", ErrClosed, nil)
	}
	nl, err := c.sock.redial()
	if err != nil {
		return nil, explainErrno(op+": reopen after an interrupted request", err)
	}
	c.sock.nl.Close()
	c.sock.nl, c.sock.broken = nl, false
	return nl, nil
}

// interrupted marks the socket out of step after a request was cut short,
// and reports whether Close did it.
func (c *Conn) interrupted() (closed bool) {
	c.sock.Lock()
	defer c.sock.Unlock()
	c.sock.broken = true
	return c.sock.closed
}

// request is one nldev command with u32/u8 attributes, in the order
// iproute2 puts them (rd_prepare_msg and _res_send_msg in rdma/utils.c,
// rdma/res.c).
type request struct {
	cmd   Command
	dump  bool
	attrs []reqAttr
}

type reqAttr struct {
	typ Attr
	u32 uint32
	u8  bool // send as u8 instead of u32
}

func (r request) message() (netlink.Message, error) {
	ae := netlink.NewAttributeEncoder()
	for _, a := range r.attrs {
		if a.u8 {
			ae.Uint8(uint16(a.typ), uint8(a.u32))
		} else {
			ae.Uint32(uint16(a.typ), a.u32)
		}
	}
	data, err := ae.Encode()
	if err != nil {
		return netlink.Message{}, err
	}
	flags := netlink.Request
	if r.dump {
		flags |= netlink.Dump
	}
	return netlink.Message{
		Header: netlink.Header{Type: netlink.HeaderType(msgType(r.cmd)), Flags: flags},
		Data:   data,
	}, nil
}

// do sends r and calls fn for every reply message in order. Replies are
// drained to the end even after fn fails, so the socket stays in step for
// the next request; the first error is returned. Requests go without
// NLM_F_ACK: the kernel answers a doit with one message and a dump with
// messages ending in NLMSG_DONE, and errors arrive either way.
//
// ctx bounds the whole exchange: its deadline becomes the socket's, and
// its cancellation sets a deadline in the past, which wakes a blocked
// receive (the socket is then replaced before the next request).
func (c *Conn) do(ctx context.Context, op string, r request, fn func(m netlink.Message) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return opError(op, err, nil)
	}
	nl, err := c.socket(op)
	if err != nil {
		return err
	}
	req, err := r.message()
	if err != nil {
		return opError(op, nil, err)
	}
	// A socket without deadlines (a test fake) cannot be interrupted by
	// ctx; it still ends when closed.
	if d, ok := ctx.Deadline(); ok {
		_ = nl.SetDeadline(d)
		defer func() { _ = nl.SetDeadline(time.Time{}) }()
	}
	stop := context.AfterFunc(ctx, func() { _ = nl.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() {
			// The deadline in the past is set (or about to be), even
			// if the reply was complete: replace the socket.
			c.interrupted()
		}
	}()
	// cut turns the error of an interrupted send or receive into one
	// that names why: Close, or ctx.
	cut := func(err error) error {
		if !c.isClosed() && ctx.Err() == nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return explainErrno(op, err)
		}
		switch {
		case c.interrupted():
			return opError(op, ErrClosed, nil)
		case ctx.Err() != nil:
			return opError(op, ctx.Err(), nil)
		}
		return opError(op, context.DeadlineExceeded, err)
	}
	sent, err := nl.Send(req)
	if err != nil {
		return cut(err)
	}
	if c.tap != nil {
		c.tap(sent, nil)
	}
	var first error
	for m, err := range nl.ReceiveIter() {
		if err != nil {
			if err := cut(err); first == nil {
				first = err
			}
			break
		}
		if c.tap != nil {
			c.tap(sent, &m)
		}
		if first != nil {
			continue
		}
		if m.Header.Sequence != sent.Header.Sequence {
			first = malformed(op, fmt.Errorf("reply sequence %d, request was %d", m.Header.Sequence, sent.Header.Sequence))
			continue
		}
		// Only the client is checked: the kernel answers some requests
		// with another command's type (nldev_port_get_doit replies as
		// RDMA_NLDEV_CMD_GET).
		if uint16(m.Header.Type)>>10 != clientNLDEV {
			first = malformed(op, fmt.Errorf("reply type %#x is not an nldev message", uint16(m.Header.Type)))
			continue
		}
		if err := fn(m); err != nil {
			first = err
		}
	}
	return first
}

func (c *Conn) isClosed() bool {
	c.sock.Lock()
	defer c.sock.Unlock()
	return c.sock.closed
}
