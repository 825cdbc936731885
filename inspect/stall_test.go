package inspect

import (
	"errors"
	"iter"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
)

// stallSocket is a netlink.Socket that answers like replayFunc but, for
// the requests stall picks, sends the first message of the reply and then
// blocks, as a kernel does in the middle of a long dump, until the socket
// is closed or its deadline passes. It supports deadlines the way
// mdlayher/socket does: a deadline in the past wakes a blocked receive
// with os.ErrDeadlineExceeded.
type stallSocket struct {
	fn    nltest.Func
	stall func(req netlink.Message) bool
	// blocked receives once each time a receive blocks.
	blocked chan struct{}

	mu       sync.Mutex
	msgs     []netlink.Message
	stalling bool
	deadline time.Time
	wake     chan struct{}
	closed   chan struct{}
	once     sync.Once
}

func newStallSocket(fn nltest.Func, stall func(req netlink.Message) bool) *stallSocket {
	return &stallSocket{fn: fn, stall: stall, blocked: make(chan struct{}, 16),
		wake: make(chan struct{}, 1), closed: make(chan struct{})}
}

// conn wraps s as a netlink.Conn, as nltest.Dial does its own socket.
func (s *stallSocket) conn() *netlink.Conn { return netlink.NewConn(s, nltest.PID) }

func (s *stallSocket) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

func (s *stallSocket) Send(m netlink.Message) error {
	msgs, err := s.fn([]netlink.Message{m})
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs, s.stalling = msgs, s.stall(m)
	return nil
}

func (s *stallSocket) SendMessages(ms []netlink.Message) error {
	return errors.New("stallSocket: SendMessages is not used by inspect")
}

func (s *stallSocket) Receive() ([]netlink.Message, error) {
	var out []netlink.Message
	for m, err := range s.ReceiveIter() {
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ReceiveIter yields one datagram: every pending message, or only the
// first while stalling, and then blocks on the next call.
func (s *stallSocket) ReceiveIter() iter.Seq2[netlink.Message, error] {
	return func(yield func(netlink.Message, error) bool) {
		s.mu.Lock()
		if s.stalling && len(s.msgs) == 0 {
			s.mu.Unlock()
			yield(netlink.Message{}, s.block())
			return
		}
		batch := s.msgs
		if s.stalling {
			batch = s.msgs[:1]
		}
		s.msgs = s.msgs[len(batch):]
		if s.stalling {
			// Only the first message goes; the rest never comes.
			s.msgs = nil
		}
		s.mu.Unlock()
		for _, m := range batch {
			if !yield(m, nil) {
				return
			}
		}
	}
}

// block waits for Close or a deadline that has passed.
func (s *stallSocket) block() error {
	s.blocked <- struct{}{}
	for {
		s.mu.Lock()
		d := s.deadline
		s.mu.Unlock()
		if !d.IsZero() && !time.Now().Before(d) {
			return os.ErrDeadlineExceeded
		}
		var timeout <-chan time.Time
		if !d.IsZero() {
			timeout = time.After(time.Until(d))
		}
		select {
		case <-s.closed:
			return os.ErrClosed
		case <-s.wake:
		case <-timeout:
		}
	}
}

func (s *stallSocket) SetDeadline(t time.Time) error {
	s.mu.Lock()
	s.deadline = t
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

func (s *stallSocket) SetReadDeadline(t time.Time) error  { return s.SetDeadline(t) }
func (s *stallSocket) SetWriteDeadline(t time.Time) error { return s.SetDeadline(t) }

// isQPDump picks the RDMA_NLDEV_CMD_RES_QP_GET dump.
func isQPDump(req netlink.Message) bool {
	return uint16(req.Header.Type) == msgType(CmdResQPGet) && req.Header.Flags&netlink.Dump != 0
}

// waitBlocked waits for the socket to block in a receive.
func waitBlocked(t *testing.T, s *stallSocket) {
	t.Helper()
	select {
	case <-s.blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("the dump never reached the stalled receive")
	}
}
