//go:build lab

package verbs

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// TestRCOpcodes runs every RC opcode between two QPs on rxe0 and checks
// the data byte for byte where it landed, the completions on both sides
// and the atomics' returned old values. The oracle is the memory itself:
// what the device wrote is compared with what was sent.
func TestRCOpcodes(t *testing.T) {
	p := newPair(t, QPTRC, pairOpts{})
	a, b := p.mrA.Bytes(), p.mrB.Bytes()

	t.Run("SEND", func(t *testing.T) {
		fill(a[:4096], 1)
		if err := p.b.PostRecv([]RecvWR{{WRID: 100, SGEs: sge(p.mrB, 0, 4096)}}); err != nil {
			t.Fatal(err)
		}
		if err := p.a.PostSend([]SendWR{{WRID: 1, Opcode: WRSend, Flags: SendSignaled, SGEs: sge(p.mrA, 0, 4096)}}); err != nil {
			t.Fatal(err)
		}
		s := waitOK(t, p.cqA, 1)[0]
		r := waitOK(t, p.cqB, 1)[0]
		if s.WRID != 1 || s.Opcode != WCSend || s.QPNum != p.a.Num() {
			t.Errorf("send WC %+v", s)
		}
		if r.WRID != 100 || r.Opcode != WCRecv || r.ByteLen != 4096 || r.QPNum != p.b.Num() || r.Flags&WCWithImm != 0 {
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
		wr := SendWR{WRID: 2, Opcode: WRSendWithImm, Flags: SendSignaled | SendSolicited, Imm: 0xdeadbeef,
			SGEs: []SGE{{MR: p.mrA, Offset: 0, Length: 100}, {MR: p.mrA, Offset: 200, Length: 100}}}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		r := waitOK(t, p.cqB, 1)[0]
		if r.Opcode != WCRecv || r.Flags&WCWithImm == 0 || r.Imm != 0xdeadbeef || r.ByteLen != 200 {
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
		if err := p.a.PostSend([]SendWR{{WRID: 3, Opcode: WRSend, Flags: SendSignaled | SendInline, SGEs: sge(p.mrA, 0, 48)}}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		if r := waitOK(t, p.cqB, 1)[0]; r.ByteLen != 48 || !bytes.Equal(b[8192:8240], a[:48]) {
			t.Errorf("inline send: WC %+v, data equal %v", r, bytes.Equal(b[8192:8240], a[:48]))
		}
	})

	t.Run("RDMA_WRITE", func(t *testing.T) {
		fill(a[16384:24576], 4)
		wr := SendWR{WRID: 4, Opcode: WRRDMAWrite, Flags: SendSignaled, SGEs: sge(p.mrA, 16384, 8192),
			RemoteAddr: p.mrB.Addr() + 16384, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		if s := waitOK(t, p.cqA, 1)[0]; s.Opcode != WCRDMAWrite {
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
		wr := SendWR{WRID: 5, Opcode: WRRDMAWriteWithImm, Flags: SendSignaled, Imm: 0x01020304,
			SGEs: sge(p.mrA, 24576, 1024), RemoteAddr: p.mrB.Addr() + 24576, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		waitOK(t, p.cqA, 1)
		r := waitOK(t, p.cqB, 1)[0]
		if r.WRID != 103 || r.Opcode != WCRecvRDMAWithImm || r.Imm != 0x01020304 || r.Flags&WCWithImm == 0 || r.ByteLen != 1024 {
			t.Errorf("recv WC %+v, want RECV_RDMA_WITH_IMM imm 0x01020304 len 1024", r)
		}
		if !bytes.Equal(b[24576:25600], a[24576:25600]) {
			t.Error("remote memory differs from what was written")
		}
	})

	t.Run("RDMA_READ", func(t *testing.T) {
		fill(b[32768:40960], 6)
		wr := SendWR{WRID: 6, Opcode: WRRDMARead, Flags: SendSignaled, SGEs: sge(p.mrA, 32768, 8192),
			RemoteAddr: p.mrB.Addr() + 32768, RKey: p.mrB.RKey()}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		if s := waitOK(t, p.cqA, 1)[0]; s.Opcode != WCRDMARead || s.ByteLen != 8192 {
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
			wr := SendWR{WRID: id, Opcode: op, Flags: SendSignaled, SGEs: sge(p.mrA, 40960, 8),
				RemoteAddr: p.mrB.Addr() + 40960, RKey: p.mrB.RKey(), CompareAdd: cmpAdd, Swap: swap}
			if err := p.a.PostSend([]SendWR{wr}); err != nil {
				t.Fatal(err)
			}
			s := waitOK(t, p.cqA, 1)[0]
			want := map[WROpcode]WCOpcode{WRAtomicCmpAndSwp: WCCompSwap, WRAtomicFetchAndAdd: WCFetchAdd}[op]
			if s.Opcode != want || s.ByteLen != 8 {
				t.Errorf("atomic WC %+v, want %s with 8 bytes", s, want)
			}
			return binary.NativeEndian.Uint64(old)
		}
		if got := atomic(7, WRAtomicCmpAndSwp, 42, 99); got != 42 || binary.NativeEndian.Uint64(remote) != 99 {
			t.Errorf("CMP_AND_SWP 42->99: returned %d, memory %d; want 42 and 99", got, binary.NativeEndian.Uint64(remote))
		}
		if got := atomic(8, WRAtomicCmpAndSwp, 1, 7); got != 99 || binary.NativeEndian.Uint64(remote) != 99 {
			t.Errorf("CMP_AND_SWP mismatch: returned %d, memory %d; want 99 and unchanged", got, binary.NativeEndian.Uint64(remote))
		}
		if got := atomic(9, WRAtomicFetchAndAdd, 5, 0); got != 99 || binary.NativeEndian.Uint64(remote) != 104 {
			t.Errorf("FETCH_AND_ADD 5: returned %d, memory %d; want 99 and 104", got, binary.NativeEndian.Uint64(remote))
		}
	})

	t.Run("a batch of writes in one post", func(t *testing.T) {
		const n = 16
		fill(a[49152:49152+n*256], 7)
		wrs := make([]SendWR, n)
		for i := range wrs {
			off := uint64(49152 + i*256)
			wrs[i] = SendWR{WRID: uint64(1000 + i), Opcode: WRRDMAWrite, Flags: SendSignaled,
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
