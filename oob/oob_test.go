package oob

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The wire message rc_pingpong.c builds for LID 0, QPN 0x11, PSN
// 0xabcdef and GID ::ffff:10.0.0.1 (the lab's RoCE v2 GID), worked out
// by hand from its sprintf("%04x:%06x:%06x:%s") and gid_to_wire_gid.
const labMsg = "0000:000011:abcdef:00000000000000000000ffff0a000001\x00"

var labDest = Dest{QPN: 0x11, PSN: 0xabcdef, GID: [16]byte{10: 0xff, 11: 0xff, 12: 10, 15: 1}}

func TestMarshal(t *testing.T) {
	msg, err := labDest.marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(msg) != labMsg || len(msg) != messageSize {
		t.Errorf("Marshal = %q (%d bytes), want %q (%d)", msg, len(msg), labMsg, messageSize)
	}
	if _, err := (Dest{QPN: 1 << 24}).marshal(); err == nil {
		t.Error("a 25-bit QPN must be refused: it overflows the C side's buffer")
	}
	if got := labDest.String(); got != "LID 0x0000, QPN 0x000011, PSN 0xabcdef, GID 10.0.0.1" {
		t.Errorf("String = %q", got)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, msg string
		want      Dest
		err       string
	}{
		{"lab", labMsg, labDest, ""},
		{"no NUL", "0001:000002:000003:fe800000000000000000000000000001", Dest{LID: 1, QPN: 2, PSN: 3, GID: [16]byte{0: 0xfe, 1: 0x80, 15: 1}}, ""},
		{"after NUL ignored", labMsg + "junk", labDest, ""},
		{"upper-case hex", "00AB:00000C:00000D:00000000000000000000FFFF0A000001", Dest{LID: 0xab, QPN: 12, PSN: 13, GID: labDest.GID}, ""},
		{"three fields", "0000:000011:abcdef", Dest{}, "fields"},
		{"empty", "", Dest{}, "fields"},
		{"QPN too big", "0000:1000000:000000:00000000000000000000ffff0a000001", Dest{}, "QPN"},
		{"LID not hex", "zzzz:000011:abcdef:00000000000000000000ffff0a000001", Dest{}, "LID"},
		{"short GID", "0000:000011:abcdef:0000", Dest{}, "32"},
		{"GID not hex", "0000:000011:abcdef:0000000000000000000000000000000g", Dest{}, "not hex"},
		{"sign", "0000:+00011:abcdef:00000000000000000000ffff0a000001", Dest{}, "QPN"},
	} {
		got, err := parse([]byte(tc.msg))
		if tc.err != "" {
			if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want ErrFormat mentioning %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	if !labDest.HasGID() || (Dest{}).HasGID() {
		t.Error("HasGID: the lab GID has an interface ID, a zero GID has none")
	}
}

// TestExchange runs Dial against Accept over loopback TCP: each side
// gets the other's address, and the server connects before answering.
func TestExchange(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	server := Dest{LID: 0, QPN: 0x22, PSN: 0x123456, GID: labDest.GID}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	type result struct {
		d         Dest
		connected bool
		err       error
	}
	res := make(chan result, 1)
	go func() {
		var r result
		r.d, r.err = Accept(ctx, l, server, func(remote Dest) error { r.connected = remote == labDest; return nil }, nil)
		res <- r
	}()
	got, err := Dial(ctx, l.Addr().String(), labDest)
	if err != nil {
		t.Fatal(err)
	}
	if got != server {
		t.Errorf("client got %v, want %v", got, server)
	}
	r := <-res
	if r.err != nil || r.d != labDest || !r.connected {
		t.Errorf("server: %v %v connected-before-answering %v", r.d, r.err, r.connected)
	}
}

// TestExchangeFailures covers a server that cannot connect its QP, a
// peer that hangs, and cancellation.
func TestExchangeFailures(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go Accept(ctx, l, labDest, func(Dest) error { return errors.New("modify QP to RTR: EINVAL") }, nil)
	if _, err := Dial(ctx, l.Addr().String(), labDest); err == nil || !strings.Contains(err.Error(), "closed the connection early") {
		t.Errorf("a server that fails to connect: %v", err)
	}

	// A peer that accepts and says nothing: the deadline ends the wait.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		c, err := silent.Accept()
		if err == nil {
			time.Sleep(2 * time.Second)
			c.Close()
		}
	}()
	short, cancelShort := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancelShort()
	if _, err := Dial(short, silent.Addr().String(), labDest); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a silent server: %v, want DeadlineExceeded", err)
	}

	// Nobody connects: cancelling ends Accept.
	canceled, cancelNow := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancelNow)
	if _, err := Accept(canceled, l, labDest, nil, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Accept canceled: %v, want Canceled", err)
	}
	if _, err := Dial(ctx, "127.0.0.1:1", labDest); err == nil || !strings.Contains(err.Error(), "listening") {
		t.Errorf("nobody listening: %v", err)
	}
}

// TestAcceptIgnoresStrays: connections that send garbage, or nothing, or
// hang up are not the peer: each is told to stray and closed, and the
// real peer that comes after them (while the silent one is still open)
// is served. With only strays, Accept waits until its context ends; and
// the listener serves the next Accept afterwards.
func TestAcceptIgnoresStrays(t *testing.T) {
	l, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	var strays []string
	stray := func(from string, err error) {
		mu.Lock()
		defer mu.Unlock()
		strays = append(strays, err.Error())
	}
	type result struct {
		d   Dest
		err error
	}
	res := make(chan result, 1)
	go func() {
		d, err := Accept(ctx, l, labDest, nil, stray)
		res <- result{d, err}
	}()
	send := func(b []byte) net.Conn {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		if b != nil {
			c.Write(b)
		}
		return c
	}
	garbage := send([]byte(strings.Repeat("GET / HTTP/1.0\r\n", 4)))
	defer garbage.Close()
	silent := send(nil)
	defer silent.Close()
	send(nil).Close() // connects and hangs up at once
	waitStrays := func(n int) {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			mu.Lock()
			got := len(strays)
			mu.Unlock()
			if got >= n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d strays reported, want %d", got, n)
			}
		}
	}
	waitStrays(2)
	peer := Dest{QPN: 0x33, PSN: 0x44, GID: labDest.GID}
	got, err := Dial(ctx, l.Addr().String(), peer)
	if err != nil {
		t.Fatalf("the real peer, after the strays: %v", err)
	}
	if got != labDest {
		t.Errorf("the peer got %v, want %v", got, labDest)
	}
	if r := <-res; r.err != nil || r.d != peer {
		t.Errorf("Accept: %v %v, want %v", r.d, r.err, peer)
	}
	mu.Lock()
	for _, s := range strays {
		if !strings.Contains(s, "address") {
			t.Errorf("a stray's report should say what was wrong with its address: %q", s)
		}
	}
	mu.Unlock()

	// Only a stray: Accept waits for a real peer until its deadline.
	short, cancelShort := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancelShort()
	go func() { c := send([]byte("nonsense")); time.Sleep(time.Second); c.Close() }()
	if _, err := Accept(short, l, labDest, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Accept with only a stray: %v, want DeadlineExceeded", err)
	}
	// The listener serves the next Accept.
	go func() {
		d, err := Accept(ctx, l, labDest, nil, nil)
		res <- result{d, err}
	}()
	if _, err := Dial(ctx, l.Addr().String(), peer); err != nil {
		t.Fatalf("the listener after an Accept that timed out: %v", err)
	}
	if r := <-res; r.err != nil {
		t.Errorf("the second Accept: %v", r.err)
	}
}

// FuzzParse feeds parse arbitrary bytes: it must never panic, and what it
// accepts must survive a round trip through marshal.
func FuzzParse(f *testing.F) {
	f.Add([]byte(labMsg))
	f.Add([]byte("0001:000002:000003:fe800000000000000000000000000001"))
	f.Add([]byte("::::"))
	f.Add([]byte("ffffffff:ffffff:ffffff:ffffffffffffffffffffffffffffffff"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		d, err := parse(msg)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("Parse error %v does not wrap ErrFormat", err)
			}
			return
		}
		wire, err := d.marshal()
		if err != nil {
			t.Fatalf("Parse accepted %q as %v, which does not marshal: %v", msg, d, err)
		}
		back, err := parse(wire)
		if err != nil || back != d {
			t.Fatalf("round trip of %v: %v %v", d, back, err)
		}
	})
}
