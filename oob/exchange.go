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
	msg, err := local.Marshal()
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

// Accept waits on l for one client, reads its address, and calls
// connect with it; the server moves its QP to RTR (and RTS) there, before
// answering, because the client sends as soon as it has the answer. Then
// it sends local and waits for the client's "done". An error from
// connect ends the exchange without answering, as rc_pingpong does.
func Accept(ctx context.Context, l net.Listener, local Dest, connect func(remote Dest) error) (Dest, error) {
	msg, err := local.Marshal()
	if err != nil {
		return Dest{}, err
	}
	stopL := context.AfterFunc(ctx, func() {
		if dl, ok := l.(interface{ SetDeadline(time.Time) error }); ok {
			dl.SetDeadline(time.Unix(1, 0))
		} else {
			l.Close()
		}
	})
	conn, err := l.Accept()
	stopL()
	if err != nil {
		return Dest{}, ioErr(ctx, "accept a client", err)
	}
	defer conn.Close()
	stop := bind(ctx, conn)
	defer stop()
	remote, err := readDest(ctx, conn)
	if err != nil {
		return Dest{}, err
	}
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

// readDest reads and parses one address message.
func readDest(ctx context.Context, conn net.Conn) (Dest, error) {
	buf := make([]byte, MessageSize)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return Dest{}, ioErr(ctx, "read the peer's address", err)
	}
	return Parse(buf)
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
