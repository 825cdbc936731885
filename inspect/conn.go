package inspect

import (
	"fmt"
	"sync"

	"github.com/mdlayher/netlink"
)

// Conn is a connection to the kernel's RDMA netlink device interface
// (nldev, drivers/infiniband/core/nldev.c), the same channel iproute2's
// rdma tool uses. It is safe for one goroutine at a time; a mutex
// serializes concurrent calls, since nldev replies are read in order.
type Conn struct {
	mu     sync.Mutex
	nl     *netlink.Conn
	closed bool
	// procRoot is where comm names are read: procRoot/PID/comm.
	procRoot string
	// sizeHint remembers how many objects of each kind the last dump
	// of a device returned, to allocate the next result once.
	sizeHint map[string]int
	// tap, when set, sees every request as it is sent (reply nil) and
	// every reply message as it arrives (see Record).
	tap func(req netlink.Message, reply *netlink.Message)
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
	nl, err := netlink.Dial(netlinkRDMA, &netlink.Config{MessageBufferSize: recvBufferSize})
	if err != nil {
		return nil, explainErrno("dial", err)
	}
	return NewConn(nl), nil
}

// NewConn wraps an open netlink connection, such as one from
// nltest.Dial that fakes the kernel in tests. Comm names of user objects
// come from /proc; see SetProcRoot.
func NewConn(nl *netlink.Conn) *Conn {
	return &Conn{nl: nl, procRoot: "/proc"}
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

// Close closes the socket. It is safe to call more than once.
func (c *Conn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return c.nl.Close()
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
func (c *Conn) do(op string, r request, fn func(m netlink.Message) error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return opError(op, ErrClosed, nil)
	}
	req, err := r.message()
	if err != nil {
		return opError(op, nil, err)
	}
	sent, err := c.nl.Send(req)
	if err != nil {
		return explainErrno(op, err)
	}
	if c.tap != nil {
		c.tap(sent, nil)
	}
	var first error
	for m, err := range c.nl.ReceiveIter() {
		if err != nil {
			if first == nil {
				first = explainErrno(op, err)
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
