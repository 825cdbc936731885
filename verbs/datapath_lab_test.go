//go:build lab

package verbs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// TestRCOpcodes runs every RC opcode between two QPs on rxe0 and checks
// the data byte for byte where it landed, the completions on both sides
// and the atomics' returned old values. The oracle is the memory itself:
// what the device wrote is compared with what was sent.
func TestRCOpcodes(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	a, b := p.mrA.Bytes(), p.mrB.Bytes()

	t.Run("SEND", func(t *testing.T) {
		fill(a[:4096], 1)
		if err := p.b.PostRecv([]RecvWR{{WRID: 100, SGEs: sge(p.mrB, 0, 4096)}}); err != nil {
			t.Fatal(err)
		}
		if err := p.a.PostSend([]SendWR{{WRID: 1, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 4096)}}); err != nil {
			t.Fatal(err)
		}
		s := waitOK(t, p.cqA, 1)[0]
		r := waitOK(t, p.cqB, 1)[0]
		if s.WRID != 1 || s.Opcode != rdma.WCSend || s.QPNum != p.a.Num() {
			t.Errorf("send WC %+v", s)
		}
		if r.WRID != 100 || r.Opcode != rdma.WCRecv || r.ByteLen != 4096 || r.QPNum != p.b.Num() || r.Flags&rdma.WCWithImm != 0 {
			t.Errorf("recv WC %+v", r)
		}
		if !bytes.Equal(a[:4096], b[:4096]) {
			t.Error("received bytes differ from the sent ones")
		}
	})

	t.Run("SEND_WITH_IMM gathered from two SGEs", func(t *testing.T) {
		fill(a[:300], 2)
		if err := p.b.PostRecv([]RecvWR{{WRID: 101, SGEs: sge(p.mrB, 4096, 4096)}}); err != nil {
			t.Fatal(err)
		}
		wr := SendWR{WRID: 2, Opcode: rdma.WRSendWithImm, Flags: rdma.SendSignaled | rdma.SendSolicited, Imm: 0xdeadbeef,
			SGEs: []SGE{{MR: p.mrA, Offset: 0, Length: 100}, {MR: p.mrA, Offset: 200, Length: 100}}}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		r := waitOK(t, p.cqB, 1)[0]
		if r.Opcode != rdma.WCRecv || r.Flags&rdma.WCWithImm == 0 || r.Imm != 0xdeadbeef || r.ByteLen != 200 {
			t.Errorf("recv WC %+v, want RECV with imm 0xdeadbeef (host order) and 200 bytes", r)
		}
		want := append(append([]byte{}, a[:100]...), a[200:300]...)
		if !bytes.Equal(b[4096:4296], want) {
			t.Error("the two gathered SGEs did not arrive back to back")
		}
	})

	t.Run("inline SEND", func(t *testing.T) {
		fill(a[:48], 3)
		if err := p.b.PostRecv([]RecvWR{{WRID: 102, SGEs: sge(p.mrB, 8192, 64)}}); err != nil {
			t.Fatal(err)
		}
		if err := p.a.PostSend([]SendWR{{WRID: 3, Opcode: rdma.WRSend, Flags: rdma.SendSignaled | rdma.SendInline, SGEs: sge(p.mrA, 0, 48)}}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		if r := waitOK(t, p.cqB, 1)[0]; r.ByteLen != 48 || !bytes.Equal(b[8192:8240], a[:48]) {
			t.Errorf("inline send: WC %+v, data equal %v", r, bytes.Equal(b[8192:8240], a[:48]))
		}
	})

	t.Run("RDMA_WRITE", func(t *testing.T) {
		fill(a[16384:24576], 4)
		wr := SendWR{WRID: 4, Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 16384, 8192),
			RemoteAddr: p.mrB.Addr() + 16384, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		if s := waitOK(t, p.cqA, 1)[0]; s.Opcode != rdma.WCRDMAWrite {
			t.Errorf("write WC %+v", s)
		}
		if !bytes.Equal(b[16384:24576], a[16384:24576]) {
			t.Error("remote memory differs from what was written")
		}
		noMoreWCs(t, p.cqB, 0) // a plain write consumes no receive
	})

	t.Run("RDMA_WRITE_WITH_IMM", func(t *testing.T) {
		fill(a[24576:25600], 5)
		if err := p.b.PostRecv([]RecvWR{{WRID: 103}}); err != nil { // the immediate needs a receive, the data does not
			t.Fatal(err)
		}
		wr := SendWR{WRID: 5, Opcode: rdma.WRRDMAWriteWithImm, Flags: rdma.SendSignaled, Imm: 0x01020304,
			SGEs: sge(p.mrA, 24576, 1024), RemoteAddr: p.mrB.Addr() + 24576, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		r := waitOK(t, p.cqB, 1)[0]
		if r.WRID != 103 || r.Opcode != rdma.WCRecvRDMAWithImm || r.Imm != 0x01020304 || r.Flags&rdma.WCWithImm == 0 || r.ByteLen != 1024 {
			t.Errorf("recv WC %+v, want RECV_RDMA_WITH_IMM imm 0x01020304 len 1024", r)
		}
		if !bytes.Equal(b[24576:25600], a[24576:25600]) {
			t.Error("remote memory differs from what was written")
		}
	})

	t.Run("RDMA_READ", func(t *testing.T) {
		fill(b[32768:40960], 6)
		wr := SendWR{WRID: 6, Opcode: rdma.WRRDMARead, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 32768, 8192),
			RemoteAddr: p.mrB.Addr() + 32768, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		if s := waitOK(t, p.cqA, 1)[0]; s.Opcode != rdma.WCRDMARead || s.ByteLen != 8192 {
			t.Errorf("read WC %+v", s)
		}
		if !bytes.Equal(a[32768:40960], b[32768:40960]) {
			t.Error("read bytes differ from the remote memory")
		}
	})

	t.Run("atomics", func(t *testing.T) {
		// rxe keeps atomic operands in host byte order on both sides.
		remote := b[40960:40968]
		old := a[40960:40968]
		binary.NativeEndian.PutUint64(remote, 42)
		atomic := func(id uint64, op WROpcode, cmpAdd, swap uint64) uint64 {
			t.Helper()
			wr := SendWR{WRID: id, Opcode: op, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 40960, 8),
				RemoteAddr: p.mrB.Addr() + 40960, RKey: p.mrB.RKey(), CompareAdd: cmpAdd, Swap: swap}
			if err := p.a.PostSend([]SendWR{wr}); err != nil {
				t.Fatal(err)
			}
			s := waitOK(t, p.cqA, 1)[0]
			want := map[WROpcode]WCOpcode{rdma.WRAtomicCmpAndSwp: rdma.WCCompSwap, rdma.WRAtomicFetchAndAdd: rdma.WCFetchAdd}[op]
			if s.Opcode != want || s.ByteLen != 8 {
				t.Errorf("atomic WC %+v, want %s with 8 bytes", s, want)
			}
			return binary.NativeEndian.Uint64(old)
		}
		if got := atomic(7, rdma.WRAtomicCmpAndSwp, 42, 99); got != 42 || binary.NativeEndian.Uint64(remote) != 99 {
			t.Errorf("CMP_AND_SWP 42->99: returned %d, memory %d; want 42 and 99", got, binary.NativeEndian.Uint64(remote))
		}
		if got := atomic(8, rdma.WRAtomicCmpAndSwp, 1, 7); got != 99 || binary.NativeEndian.Uint64(remote) != 99 {
			t.Errorf("CMP_AND_SWP mismatch: returned %d, memory %d; want 99 and unchanged", got, binary.NativeEndian.Uint64(remote))
		}
		if got := atomic(9, rdma.WRAtomicFetchAndAdd, 5, 0); got != 99 || binary.NativeEndian.Uint64(remote) != 104 {
			t.Errorf("FETCH_AND_ADD 5: returned %d, memory %d; want 99 and 104", got, binary.NativeEndian.Uint64(remote))
		}
	})

	t.Run("a batch of writes in one post", func(t *testing.T) {
		const n = 16
		fill(a[49152:49152+n*256], 7)
		wrs := make([]SendWR, n)
		for i := range wrs {
			off := uint64(49152 + i*256)
			wrs[i] = SendWR{WRID: uint64(1000 + i), Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled,
				SGEs: sge(p.mrA, off, 256), RemoteAddr: p.mrB.Addr() + off, RKey: p.mrB.RKey()}
		}
		if err := p.a.PostSend(wrs); err != nil {
			t.Fatal(err)
		}
		for i, wc := range waitOK(t, p.cqA, n) {
			if wc.WRID != uint64(1000+i) {
				t.Errorf("completion %d has WRID %d: RC completes in posting order", i, wc.WRID)
			}
		}
		if !bytes.Equal(b[49152:49152+n*256], a[49152:49152+n*256]) {
			t.Error("remote memory differs after the batch")
		}
	})
}

// TestUCOpcodes runs the opcodes UC allows (ibv_post_send(3): SEND,
// SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM) between two UC QPs.
// UC acknowledges nothing: the sender's completion only says the message
// left, so the receiver's completion and memory are the proof.
func TestUCOpcodes(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeUC, pairOpts{})
	a, b := p.mrA.Bytes(), p.mrB.Bytes()
	fill(a[:8192], 11)
	recvs := []RecvWR{{WRID: 1, SGEs: sge(p.mrB, 0, 2048)}, {WRID: 2, SGEs: sge(p.mrB, 2048, 2048)}, {WRID: 3}}
	if err := p.b.PostRecv(recvs); err != nil {
		t.Fatal(err)
	}
	sends := []SendWR{
		{WRID: 10, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 2048)},
		{WRID: 11, Opcode: rdma.WRSendWithImm, Flags: rdma.SendSignaled, Imm: 0xcafe, SGEs: sge(p.mrA, 2048, 1000)},
		{WRID: 12, Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 4096, 1024), RemoteAddr: p.mrB.Addr() + 4096, RKey: p.mrB.RKey()},
		{WRID: 13, Opcode: rdma.WRRDMAWriteWithImm, Flags: rdma.SendSignaled, Imm: 77, SGEs: sge(p.mrA, 5120, 3072), RemoteAddr: p.mrB.Addr() + 5120, RKey: p.mrB.RKey()},
	}
	if err := p.a.PostSend(sends); err != nil {
		t.Fatal(err)
	}
	for i, wc := range waitOK(t, p.cqA, 4) {
		if wc.WRID != uint64(10+i) {
			t.Errorf("send completion %d has WRID %d", i, wc.WRID)
		}
	}
	got := waitOK(t, p.cqB, 3)
	want := []WC{
		{WRID: 1, Opcode: rdma.WCRecv, ByteLen: 2048},
		{WRID: 2, Opcode: rdma.WCRecv, ByteLen: 1000, Imm: 0xcafe, Flags: rdma.WCWithImm},
		{WRID: 3, Opcode: rdma.WCRecvRDMAWithImm, ByteLen: 3072, Imm: 77, Flags: rdma.WCWithImm},
	}
	for i, w := range want {
		g := got[i]
		if g.WRID != w.WRID || g.Opcode != w.Opcode || g.ByteLen != w.ByteLen || g.Imm != w.Imm || g.Flags&rdma.WCWithImm != w.Flags {
			t.Errorf("receive completion %d: %+v, want %+v", i, g, w)
		}
	}
	if !bytes.Equal(b[:3048], a[:3048]) || !bytes.Equal(b[4096:8192], a[4096:8192]) {
		t.Error("UC data differs from what was sent and written")
	}
}

// TestUDSendWithGRH sends through an address handle with a GRH (RoCE v2
// needs one). A UD receive starts with 40 bytes for the GRH; on RoCE v2
// over IPv4 the device puts the IPv4 header in its last 20 bytes.
func TestUDSendWithGRH(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeUD, pairOpts{})
	a, b := p.mrA.Bytes(), p.mrB.Bytes()
	fill(a[:1000], 12)
	if err := p.b.PostRecv([]RecvWR{{WRID: 1, SGEs: sge(p.mrB, 0, 40+1000)}, {WRID: 2, SGEs: sge(p.mrB, 2048, 40+16)}}); err != nil {
		t.Fatal(err)
	}
	ud := func(id uint64, op WROpcode, imm uint32, off uint64, n uint32) SendWR {
		return SendWR{WRID: id, Opcode: op, Flags: rdma.SendSignaled, Imm: imm, SGEs: sge(p.mrA, off, n), AH: p.ah, RemoteQPN: p.b.Num(), RemoteQKey: p.qkey}
	}
	if err := p.a.PostSend([]SendWR{ud(10, rdma.WRSend, 0, 0, 1000), ud(11, rdma.WRSendWithImm, 0x5a5a, 0, 16)}); err != nil {
		t.Fatal(err)
	}
	waitOK(t, p.cqA, 2)
	got := waitOK(t, p.cqB, 2)
	for i, w := range []struct {
		len  uint32
		imm  uint32
		flag WCFlags
	}{{1040, 0, rdma.WCWithGRH}, {56, 0x5a5a, rdma.WCWithGRH | rdma.WCWithImm}} {
		g := got[i]
		if g.ByteLen != w.len || g.Imm != w.imm || g.Flags&(rdma.WCWithGRH|rdma.WCWithImm) != w.flag || g.SrcQP != p.a.Num() || g.QPNum != p.b.Num() {
			t.Errorf("UD receive %d: %+v, want %d bytes (GRH included), imm %#x, flags %s, from QP %d", i, g, w.len, w.imm, w.flag, p.a.Num())
		}
	}
	if !bytes.Equal(b[40:1040], a[:1000]) || !bytes.Equal(b[2048+40:2048+56], a[:16]) {
		t.Error("UD payload differs from what was sent (it follows the 40-byte GRH)")
	}
	ip := p.gid.IP().To4()
	hdr := b[20:40]
	if hdr[0] != 0x45 || !bytes.Equal(hdr[12:16], ip) || !bytes.Equal(hdr[16:20], ip) {
		t.Errorf("GRH area % x: want an IPv4 header from and to %s in its last 20 bytes", b[:40], ip)
	}
	if attr := p.ah.Attr(); attr.GRH.DGID != p.gid || !attr.IsGlobal {
		t.Errorf("AH attributes %+v", attr)
	}
}

// TestPostPollAllocateNothing checks that the data path allocates no Go
// memory per call: requests and completions cross into C through each
// object's scratch area.
func TestPostPollAllocateNothing(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	wrs := []SendWR{{WRID: 1, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 64)}}
	recvs := []RecvWR{{WRID: 2, SGEs: sge(p.mrB, 0, 64)}}
	wcs := make([]WC, 4)
	allocs := testing.AllocsPerRun(200, func() {
		if err := p.b.PostRecv(recvs); err != nil {
			t.Fatal(err)
		}
		if err := p.a.PostSend(wrs); err != nil {
			t.Fatal(err)
		}
		for _, cq := range []*CQ{p.cqA, p.cqB} {
			for n := 0; n == 0; {
				n, _ = cq.Poll(wcs)
			}
		}
	})
	if allocs != 0 {
		t.Errorf("post + poll allocated %.1f times per round", allocs)
	}
}

// TestPostSendPollAllocatesNothing checks the latency step too: its post
// result stays in the QP's C scratch, so it allocates no Go memory.
func TestPostSendPollAllocatesNothing(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	wrs := []SendWR{{WRID: 1, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 64)}}
	recvs := []RecvWR{{WRID: 2, SGEs: sge(p.mrB, 0, 64)}}
	wcs := make([]WC, 4)
	ctx := waitCtx(t)
	allocs := testing.AllocsPerRun(200, func() {
		if err := p.b.PostRecv(recvs); err != nil {
			t.Fatal(err)
		}
		if n, err := p.a.PostSendPoll(ctx, wrs, p.cqA, wcs); err != nil || n != 1 || wcs[0].Status != rdma.WCSuccess {
			t.Fatalf("PostSendPoll: %d completions, %v", n, err)
		}
		for n := 0; n == 0; {
			n, _ = p.cqB.Poll(wcs)
		}
	})
	if allocs != 0 {
		t.Errorf("PostSendPoll + poll allocated %.1f times per round", allocs)
	}
}

// TestPostSendPoll posts a send and waits for its completion in one call,
// as a latency loop does, and checks the message arrived; a bind is
// refused, since binds go through PostSend.
func TestPostSendPoll(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	copy(p.mrA.Bytes(), "ping")
	if err := p.b.PostRecv([]RecvWR{{WRID: 9, SGEs: sge(p.mrB, 0, 64)}}); err != nil {
		t.Fatal(err)
	}
	wcs := make([]WC, 4)
	n, err := p.a.PostSendPoll(waitCtx(t), []SendWR{{WRID: 5, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 4)}}, p.cqA, wcs)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 || wcs[0].WRID != 5 || wcs[0].Status != rdma.WCSuccess || wcs[0].Opcode != rdma.WCSend {
		t.Fatalf("PostSendPoll returned %d completions: %+v", n, wcs[:n])
	}
	if wc := waitWCs(t, p.cqB, 1)[0]; wc.WRID != 9 || wc.ByteLen != 4 || string(p.mrB.Bytes()[:4]) != "ping" {
		t.Errorf("receive %+v, data %q", wc, p.mrB.Bytes()[:4])
	}
	_, err = p.a.PostSendPoll(waitCtx(t), []SendWR{{Opcode: rdma.WRBindMW}}, p.cqA, wcs)
	var pe *PostError
	if !errors.As(err, &pe) || !errors.Is(err, syscall.EINVAL) {
		t.Errorf("a bind through PostSendPoll: %v, want a PostError with EINVAL", err)
	}
}
