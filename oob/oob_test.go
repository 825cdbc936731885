package oob

import (
	"context"
	"errors"
	"net"
	"strings"
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
	msg, err := labDest.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(msg) != labMsg || len(msg) != MessageSize {
		t.Errorf("Marshal = %q (%d bytes), want %q (%d)", msg, len(msg), labMsg, MessageSize)
	}
	if _, err := (Dest{QPN: 1 << 24}).Marshal(); err == nil {
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
		got, err := Parse([]byte(tc.msg))
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
		r.d, r.err = Accept(ctx, l, server, func(remote Dest) error { r.connected = remote == labDest; return nil })
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
	go Accept(ctx, l, labDest, func(Dest) error { return errors.New("modify QP to RTR: EINVAL") })
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
	if _, err := Accept(canceled, l, labDest, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Accept canceled: %v, want Canceled", err)
	}
	if _, err := Dial(ctx, "127.0.0.1:1", labDest); err == nil || !strings.Contains(err.Error(), "listening") {
		t.Errorf("nobody listening: %v", err)
	}
}

// FuzzParse feeds Parse arbitrary bytes: it must never panic, and what it
// accepts must survive a round trip through Marshal.
func FuzzParse(f *testing.F) {
	f.Add([]byte(labMsg))
	f.Add([]byte("0001:000002:000003:fe800000000000000000000000000001"))
	f.Add([]byte("::::"))
	f.Add([]byte("ffffffff:ffffff:ffffff:ffffffffffffffffffffffffffffffff"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		d, err := Parse(msg)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("Parse error %v does not wrap ErrFormat", err)
			}
			return
		}
		wire, err := d.Marshal()
		if err != nil {
			t.Fatalf("Parse accepted %q as %v, which does not marshal: %v", msg, d, err)
		}
		back, err := Parse(wire)
		if err != nil || back != d {
			t.Fatalf("round trip of %v: %v %v", d, back, err)
		}
	})
}
