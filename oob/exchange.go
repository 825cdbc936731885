package oob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// Dial connects to the server at addr ("host:port"), sends local, reads
// the server's address and says "done", as ibv_rc_pingpong's client does.
// The server has moved its QP to RTR when its answer arrives, so the
// caller can connect its own QP and send at once.
func Dial(ctx context.Context, addr string, local Dest) (Dest, error) {
	msg, err := local.marshal()
	if err != nil {
		return Dest{}, err
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return Dest{}, fmt.Errorf("oob: connect to %s: %w (is the server listening? ibv_rc_pingpong uses port %d)", addr, err, DefaultPort)
	}
	defer conn.Close()
	stop := bind(ctx, conn)
	defer stop()
	if _, err := conn.Write(msg); err != nil {
		return Dest{}, ioErr(ctx, "send the local address", err)
	}
	remote, err := readDest(ctx, conn)
	if err != nil {
		return Dest{}, err
	}
	if _, err := conn.Write(done); err != nil {
		return Dest{}, ioErr(ctx, `send "done"`, err)
	}
	return remote, nil
}

// Listen opens the server's TCP listener on addr (":18515" for the
// default port on every address, as ibv_rc_pingpong does).
func Listen(addr string) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("oob: listen on %s: %w", addr, err)
	}
	return l, nil
}

// peerLimit bounds how long a connection may take to send its address:
// a real peer (ibv_rc_pingpong, dial) sends it as soon as it connects, so
// one that has said nothing well-formed by then is a stray (a port scan,
// a health check, a telnet) and is dropped. Strays are read at once, so a
// slow one never keeps a real peer waiting.
const peerLimit = 30 * time.Second

// maxStrays bounds the connections read at once: past it, new ones are
// closed at once, so a flood of idle connections costs nothing but them.
const maxStrays = 16

// Accept waits on l for a peer, reads its address, and calls connect
// with it; the server moves its QP to RTR (and RTS) there, before
// answering, because the client sends as soon as it has the answer. Then
// it sends local and waits for the client's "done". An error from
// connect ends the exchange without answering, as rc_pingpong does.
//
// A connection that sends garbage or nothing (within peerLimit) is not
// the peer: it is closed, reported to stray if stray is not nil, and the
// wait goes on until ctx ends.
func Accept(ctx context.Context, l net.Listener, local Dest, connect func(remote Dest) error, stray func(from string, err error)) (Dest, error) {
	msg, err := local.marshal()
	if err != nil {
		return Dest{}, err
	}
	conn, remote, err := acceptPeer(ctx, l, stray)
	if err != nil {
		return Dest{}, err
	}
	defer conn.Close()
	stop := bind(ctx, conn)
	defer stop()
	if connect != nil {
		if err := connect(remote); err != nil {
			return Dest{}, fmt.Errorf("oob: connect to %s: %w", remote, err)
		}
	}
	if _, err := conn.Write(msg); err != nil {
		return Dest{}, ioErr(ctx, "send the local address", err)
	}
	var buf [len("done\x00")]byte
	if _, err := io.ReadFull(conn, buf[:]); err != nil {
		return Dest{}, ioErr(ctx, `read the client's "done"`, err)
	}
	if !bytes.Equal(buf[:], done) {
		return Dest{}, fmt.Errorf("%w: the client ended with %q, not \"done\"", ErrFormat, buf[:])
	}
	return remote, nil
}

// heard is one connection and the address it sent, or why it is not one.
type heard struct {
	conn net.Conn
	dest Dest
	err  error
}

// acceptPeer accepts connections on l and reads each one's address at
// once, until one sends a well-formed address: that connection is the
// peer's. The others are closed and told to stray. Nothing it started
// outlives it.
func acceptPeer(ctx context.Context, l net.Listener, stray func(string, error)) (net.Conn, Dest, error) {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	conns := make(chan net.Conn)
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			select {
			case conns <- c:
			case <-lctx.Done():
				c.Close()
			}
		}
	}()
	defer func() {
		// Wake the Accept above and wait for its goroutine, so nothing
		// takes the next connection; then lift the deadline, so l can be
		// used again.
		cancel()
		if !setDeadline(l, time.Unix(1, 0)) {
			l.Close()
		}
		<-acceptErr
		setDeadline(l, time.Time{})
	}()
	results := make(chan heard)
	reading := 0
	for {
		select {
		case c := <-conns:
			if reading >= maxStrays {
				report(stray, c, errors.New("too many connections sending nothing; closed at once"))
				c.Close()
				continue
			}
			reading++
			go readPeer(lctx, c, results)
		case h := <-results:
			reading--
			if h.err == nil {
				return h.conn, h.dest, nil
			}
			report(stray, h.conn, h.err)
			h.conn.Close()
		case err := <-acceptErr:
			acceptErr <- err // for the deferred wait
			return nil, Dest{}, ioErr(ctx, "accept a client", err)
		case <-ctx.Done():
			return nil, Dest{}, ioErr(ctx, "accept a client", ctx.Err())
		}
	}
}

// readPeer reads c's address within peerLimit and hands the result to
// results, or closes c if the wait ended first.
func readPeer(ctx context.Context, c net.Conn, results chan<- heard) {
	dl := time.Now().Add(peerLimit)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	c.SetReadDeadline(dl)
	// A wait that ends closes c (below): waking the read is enough.
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Unix(1, 0)) })
	d, err := readDest(ctx, c)
	stop()
	if err == nil {
		c.SetReadDeadline(time.Time{})
	}
	select {
	case results <- heard{conn: c, dest: d, err: err}:
	case <-ctx.Done():
		c.Close()
	}
}

// report tells stray about a connection that was not the peer.
func report(stray func(string, error), c net.Conn, err error) {
	if stray != nil {
		stray(c.RemoteAddr().String(), err)
	}
}

// setDeadline sets l's deadline where the listener has one (TCP and
// Unix listeners do) and tells whether it did.
func setDeadline(l net.Listener, t time.Time) bool {
	dl, ok := l.(interface{ SetDeadline(time.Time) error })
	return ok && dl.SetDeadline(t) == nil
}

// readDest reads and parses one address message.
func readDest(ctx context.Context, conn net.Conn) (Dest, error) {
	buf := make([]byte, messageSize)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return Dest{}, ioErr(ctx, "read the peer's address", err)
	}
	return parse(buf)
}

// bind makes ctx govern conn: its deadline becomes the connection's, and
// cancelling it unblocks any read or write. The returned func undoes it.
func bind(ctx context.Context, conn net.Conn) func() bool {
	if dl, ok := ctx.Deadline(); ok {
		conn.SetDeadline(dl)
	}
	return context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
}

// ioErr words an I/O failure, blaming the context when it ended first.
func ioErr(ctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("oob: %s: %w", what, ctx.Err())
	}
	// The connection's deadline is the context's, and its timer can fire
	// a moment before the context's own: that is the context's deadline.
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return fmt.Errorf("oob: %s: %w", what, context.DeadlineExceeded)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("oob: %s: the peer closed the connection early (did it fail to set up its QP?): %w", what, err)
	}
	return fmt.Errorf("oob: %s: %w", what, err)
}
