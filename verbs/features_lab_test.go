//go:build lab

package verbs

import (
	"bytes"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/rdma"
)

// TestMemoryWindows binds both window types rxe supports (its
// device_cap_flags list MEM_WINDOW and MEM_WINDOW_TYPE_2B) to part of an
// MR and writes through them from the peer: type 1 with ibv_bind_mw(3),
// type 2 with a BIND_MW work request, revoked again by LOCAL_INV.
func TestMemoryWindows(t *testing.T) {
	labkit.Clean(t)
	p := newPair(t, rdma.QPTypeRC, pairOpts{})
	mr, err := p.pd.RegMR(8192, allAccess|rdma.AccessMWBind)
	if err != nil {
		t.Fatal(err)
	}
	fill(p.mrA.Bytes()[:256], 21)
	writeVia := func(id uint64, rkey uint32, off uint64) WC {
		t.Helper()
		wr := SendWR{WRID: id, Opcode: rdma.WRRDMAWrite, Flags: rdma.SendSignaled, SGEs: sge(p.mrA, 0, 256), RemoteAddr: mr.Addr() + off, RKey: rkey}
		if err := p.a.PostSend([]SendWR{wr}); err != nil {
			t.Fatal(err)
		}
		return waitWCs(t, p.cqA, 1)[0]
	}
	bindDone := func(id uint64) {
		t.Helper()
		if wc := waitOK(t, p.cqB, 1)[0]; wc.WRID != id || wc.Opcode != rdma.WCBindMW {
			t.Fatalf("bind completion %+v, want WRID %d BIND_MW", wc, id)
		}
	}

	mw1, err := p.pd.AllocMW(MWType1)
	if err != nil {
		t.Fatal(err)
	}
	before := mw1.RKey()
	if err := p.b.BindMW(MWBind{MW: mw1, MR: mr, Offset: 1024, Length: 1024, Access: rdma.AccessRemoteWrite}, 50, rdma.SendSignaled); err != nil {
		t.Fatal(err)
	}
	if mw1.RKey() != incRKey(before) {
		t.Errorf("type 1 window rkey %#x after bind, want %#x (ibv_inc_rkey)", mw1.RKey(), incRKey(before))
	}
	bindDone(50)
	if wc := writeVia(1, mw1.RKey(), 1024); wc.Status != rdma.WCSuccess || !bytes.Equal(mr.Bytes()[1024:1280], p.mrA.Bytes()[:256]) {
		t.Errorf("write through the type 1 window: %s, data equal %v", wc.Status, bytes.Equal(mr.Bytes()[1024:1280], p.mrA.Bytes()[:256]))
	}

	mw2, err := p.pd.AllocMW(MWType2)
	if err != nil {
		t.Fatal(err)
	}
	bind := &MWBind{MW: mw2, MR: mr, Offset: 4096, Length: 4096, Access: rdma.AccessRemoteWrite | rdma.AccessRemoteRead}
	want := incRKey(mw2.RKey())
	if err := p.b.PostSend([]SendWR{{WRID: 51, Opcode: rdma.WRBindMW, Flags: rdma.SendSignaled, Bind: bind}}); err != nil {
		t.Fatal(err)
	}
	if mw2.RKey() != want {
		t.Errorf("type 2 window rkey %#x after the bind was posted, want %#x", mw2.RKey(), want)
	}
	bindDone(51)
	if wc := writeVia(2, mw2.RKey(), 4096); wc.Status != rdma.WCSuccess || !bytes.Equal(mr.Bytes()[4096:4352], p.mrA.Bytes()[:256]) {
		t.Errorf("write through the type 2 window: %s", wc.Status)
	}
	if err := p.b.PostSend([]SendWR{{WRID: 52, Opcode: rdma.WRLocalInv, Flags: rdma.SendSignaled, Imm: mw2.RKey()}}); err != nil {
		t.Fatal(err)
	}
	if wc := waitOK(t, p.cqB, 1)[0]; wc.Opcode != rdma.WCLocalInv {
		t.Errorf("invalidate completion %+v", wc)
	}
	// The window is revoked: the same write is now a remote access error.
	if wc := writeVia(3, mw2.RKey(), 4096); wc.Status != rdma.WCRemAccessErr {
		t.Errorf("write through an invalidated window: %s, want REM_ACCESS_ERR", wc.Status)
	}
	// Closed here, not left to the pair's PD: its wrapper could be
	// collected first, and the leak check would report it.
	if err := mw2.Close(); err != nil {
		t.Errorf("closing the type 2 window: %v", err)
	}

	// Binding needs MW_BIND on the region, checked before the library.
	if err := p.b.BindMW(MWBind{MW: mw1, MR: p.mrB, Length: 8}, 53, 0); !errors.Is(err, syscall.EINVAL) || !strings.Contains(err.Error(), "MW_BIND") {
		t.Errorf("binding to an MR without MW_BIND: %v", err)
	}
	// The bound type 1 window depends on the MR now: closing the MR
	// closes the window first (rxe refuses to deregister a region with
	// windows bound to it).
	if err := mr.Close(); err != nil {
		t.Fatalf("MR.Close with bound windows: %v", err)
	}
	if err := mw1.Destroy(); !errors.Is(err, ErrClosed) {
		t.Errorf("window after its MR closed: %v, want ErrClosed", err)
	}
}

// TestSRQ shares one receive queue between two QPs and arms its limit.
func TestSRQ(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	gid, gidIndex := labGID(t, c)
	pd, _ := c.AllocPD()
	srq, err := pd.CreateSRQ(SRQAttr{MaxWR: 16, MaxSGE: 1})
	if err != nil {
		t.Fatal(err)
	}
	if a := srq.Attr(); a.MaxWR < 16 || a.MaxSGE < 1 {
		t.Errorf("granted %+v", a)
	}
	c.Events()
	cq, _ := c.CreateCQ(64, nil, 0)
	mr, _ := pd.RegMR(4096, rdma.AccessLocalWrite)
	caps := QPCap{MaxSendWR: 4, MaxRecvWR: 4, MaxSendSGE: 1, MaxRecvSGE: 1}
	var senders, receivers [2]*QP
	for i := range 2 {
		if receivers[i], err = pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: caps, SRQ: srq}); err != nil {
			t.Fatal(err)
		}
		if senders[i], err = pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: caps}); err != nil {
			t.Fatal(err)
		}
		connectQP(t, receivers[i], senders[i].Num(), gid, gidIndex, allAccess, 7, 0)
		connectQP(t, senders[i], receivers[i].Num(), gid, gidIndex, allAccess, 7, 0)
	}
	if err := receivers[0].PostRecv([]RecvWR{{SGEs: sge(mr, 0, 8)}}); err == nil || !strings.Contains(err.Error(), "SRQ.PostRecv") {
		t.Errorf("posting to a QP that uses an SRQ: %v", err)
	}
	var recvs []RecvWR
	for i := range 4 {
		recvs = append(recvs, RecvWR{WRID: uint64(100 + i), SGEs: sge(mr, uint64(i*64), 64)})
	}
	if err := srq.PostRecv(recvs); err != nil {
		t.Fatal(err)
	}
	// Armed at 3: the event fires once fewer than 3 receives remain.
	if err := srq.Modify(SRQAttr{Limit: 3}, SRQLimit); err != nil {
		t.Fatal(err)
	}
	if a, err := srq.Query(); err != nil || a.Limit != 3 {
		t.Errorf("query after arming: %+v %v", a, err)
	}
	for i, s := range senders {
		if err := s.PostSend([]SendWR{{WRID: uint64(i), Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(mr, 3072, 32)}}); err != nil {
			t.Fatal(err)
		}
	}
	byQP := map[uint32]WC{}
	for _, wc := range waitOK(t, cq, 4) {
		if wc.Opcode == rdma.WCRecv {
			byQP[wc.QPNum] = wc
		}
	}
	for _, r := range receivers {
		if wc, ok := byQP[r.Num()]; !ok || wc.WRID < 100 || wc.ByteLen != 32 {
			t.Errorf("QP %d: receive completion %+v; both QPs take from the shared queue", r.Num(), wc)
		}
	}
	ev, others := expectEvent(t, c, rdma.EventSRQLimitReached)
	if ev.SRQ != srq || len(others) != 0 {
		t.Errorf("SRQ_LIMIT_REACHED named %v (after %v)", ev, others)
	}
	if a, _ := srq.Query(); a.Limit != 0 {
		t.Errorf("limit %d after the event; the event disarms it (0)", a.Limit)
	}
	if err := srq.Destroy(); !errors.Is(err, syscall.EBUSY) {
		t.Errorf("destroying an SRQ QPs use: %v, want EBUSY", err)
	}
	// A QP with an SRQ moving to ERR sends QP_LAST_WQE_REACHED on
	// hardware, and on rxe from Debian's 6.12 (found in the lab); rxe in
	// 6.1 sends none.
	if err := receivers[0].Modify(&QPAttr{State: rdma.QPStateErr}, rdma.AttrState); err != nil {
		t.Fatal(err)
	}
	if labkit.Kernel(t) == "6.1" {
		if evs := drainEvents(c, quiet); len(evs) != 0 {
			t.Errorf("events after an SRQ QP went to ERR: %v; rxe 6.1 sends no LAST_WQE_REACHED", evs)
		}
	} else {
		ev, others := expectEvent(t, c, rdma.EventQPLastWQEReached)
		if ev.QP != receivers[0] || len(others) != 0 {
			t.Errorf("LAST_WQE_REACHED named %v (after %v), want the QP moved to ERR", ev, others)
		}
		expectNoEvents(t, c)
	}
	if err := srq.Close(); err != nil {
		t.Errorf("SRQ.Close (QPs first): %v", err)
	}
	if _, err := receivers[1].State(); !errors.Is(err, ErrClosed) {
		t.Errorf("a QP of a closed SRQ: %v, want ErrClosed", err)
	}
}

// TestXRCUnsupportedOnRxe records that rxe in Linux 6.1 has no XRC: its
// device_cap_flags lack IB_DEVICE_XRC, and the kernel refuses an XRC
// initiator QP with EOPNOTSUPP (rxe_qp_chk_init accepts RC, UC, UD and
// the special QPs only). An XRC target QP is refused earlier, with
// EINVAL, because it has no XRC domain (ibv_open_xrcd is not provided by
// rxe's provider either).
func TestXRCUnsupportedOnRxe(t *testing.T) {
	labkit.Clean(t)
	c := labDevice(t)
	attr, err := c.QueryDevice()
	if err != nil {
		t.Fatal(err)
	}
	const deviceXRC = 1 << 20 // IBV_DEVICE_XRC
	if attr.DeviceCapFlags&deviceXRC != 0 {
		t.Errorf("device_cap_flags %#x claim XRC", attr.DeviceCapFlags)
	}
	pd, _ := c.AllocPD()
	cq, _ := c.CreateCQ(4, nil, 0)
	for typ, want := range map[QPType]syscall.Errno{rdma.QPTypeXRCSend: syscall.EOPNOTSUPP, rdma.QPTypeXRCRecv: syscall.EINVAL} {
		_, err := pd.CreateQP(QPInitAttr{Type: typ, SendCQ: cq, RecvCQ: cq, Cap: QPCap{MaxSendWR: 1, MaxSendSGE: 1}})
		if !errors.Is(err, want) {
			t.Errorf("CreateQP(%s): %v, want %s", typ, err, rdma.ErrnoName(want))
		}
	}
	// Closed here, not left to the context's Close: a wrapper could be
	// collected first, and the leak check would report it.
	if err := errors.Join(pd.Close(), cq.Close()); err != nil {
		t.Errorf("closing: %v", err)
	}
}
