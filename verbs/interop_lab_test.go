//go:build lab

package verbs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/oob"
	"github.com/verbscope/verbscope/rdma"
)

// Interop with rdma-core's own ibv_rc_pingpong: a QP made by this package
// finds the tool through oob (its TCP exchange of LID:QPN:PSN:GID) and
// ping-pongs with it, once as the client and once as the server, on rxe0
// in loopback. The tool is the oracle: it must finish its iterations and
// exit 0, and print our QPN and PSN as its remote address. Its single
// buffer serves both to receive and to send, so after the first message
// it echoes whatever we sent, which gives us a byte-for-byte check too.

const (
	ppIters   = 500
	ppSize    = 4096 // rc_pingpong's default -s
	ppRxDepth = 16
)

// ppSide is this package's half of the ping-pong: one RC QP set up the
// way rc_pingpong sets up its own (MTU 1024, no remote access, one send
// outstanding, a ring of posted receives).
type ppSide struct {
	qp       *QP
	cq       *CQ
	mr       *MR // slot 0 sends, slots 1..ppRxDepth receive
	local    oob.Dest
	gidIndex int
}

func newPPSide(t *testing.T) *ppSide {
	t.Helper()
	c := labDevice(t)
	gid, gidIndex := labGID(t, c)
	s, err := buildPPSide(c, gid, gidIndex, QPCap{MaxSendWR: 1, MaxRecvWR: ppRxDepth, MaxSendSGE: 1, MaxRecvSGE: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the context, by wrappers the cleanup keeps
	// reachable: left to the context's Close, one can be collected
	// first, and the leak check reports it (as newPairOn's).
	t.Cleanup(func() {
		if err := errors.Join(s.qp.Close(), s.mr.Close(), s.cq.Close(), s.qp.pd.Close()); err != nil {
			t.Errorf("closing the pingpong side: %v", err)
		}
	})
	return s
}

// buildPPSide makes one side on c with the given QP caps: PD, CQ, MR,
// an RC QP in INIT with its receives posted, and the address to tell
// the peer. Closing c destroys it all.
func buildPPSide(c *Context, gid GID, gidIndex int, caps QPCap) (*ppSide, error) {
	pd, err := c.AllocPD()
	if err != nil {
		return nil, err
	}
	s := &ppSide{gidIndex: gidIndex}
	if s.cq, err = c.CreateCQ(ppRxDepth+int(caps.MaxSendWR), nil, 0); err != nil {
		return nil, err
	}
	if s.mr, err = pd.RegMR(ppSize*(ppRxDepth+1), rdma.AccessLocalWrite); err != nil {
		return nil, err
	}
	fill(s.mr.Bytes()[:ppSize], 42)
	if s.qp, err = pd.CreateQP(QPInitAttr{Type: rdma.QPTypeRC, SendCQ: s.cq, RecvCQ: s.cq, Cap: caps}); err != nil {
		return nil, err
	}
	if err := s.qp.Modify(&QPAttr{State: rdma.QPStateInit, Port: 1}, rdma.AttrState|rdma.AttrPKeyIndex|rdma.AttrPort|rdma.AttrAccessFlags); err != nil {
		return nil, err
	}
	recvs := make([]RecvWR, ppRxDepth)
	for i := range recvs {
		recvs[i] = s.recv(i + 1)
	}
	if err := s.qp.PostRecv(recvs); err != nil {
		return nil, err
	}
	port, err := c.QueryPort(1)
	if err != nil {
		return nil, err
	}
	s.local = oob.Dest{LID: port.LID, QPN: s.qp.Num(), PSN: rand.Uint32N(1 << 24), GID: gid}
	return s, nil
}

// recv is the receive request for slot i; its WRID is the slot.
func (s *ppSide) recv(slot int) RecvWR {
	return RecvWR{WRID: uint64(slot), SGEs: sge(s.mr, uint64(slot*ppSize), ppSize)}
}

// connect moves the QP to RTR and RTS toward remote, with the values
// rc_pingpong's pp_connect_ctx uses.
func (s *ppSide) connect(remote oob.Dest) error {
	rtr := QPAttr{State: rdma.QPStateRTR, PathMTU: rdma.MTU1024, DestQPN: remote.QPN, RQPSN: remote.PSN, MaxDestRdAtomic: 1, MinRNRTimer: 12,
		AH: AHAttr{DLID: remote.LID, PortNum: 1}}
	if remote.HasGID() {
		rtr.AH.IsGlobal = true
		rtr.AH.GRH = GlobalRoute{DGID: GID(remote.GID), SGIDIndex: uint8(s.gidIndex), HopLimit: 1}
	}
	if err := s.qp.Modify(&rtr, rdma.AttrState|rdma.AttrAV|rdma.AttrPathMTU|rdma.AttrDestQPN|rdma.AttrRQPSN|rdma.AttrMaxDestRdAtomic|rdma.AttrMinRNRTimer); err != nil {
		return err
	}
	rts := QPAttr{State: rdma.QPStateRTS, Timeout: 14, RetryCnt: 7, RNRRetry: 7, SQPSN: s.local.PSN, MaxRdAtomic: 1}
	return s.qp.Modify(&rts, rdma.AttrState|rdma.AttrTimeout|rdma.AttrRetryCnt|rdma.AttrRNRRetry|rdma.AttrSQPSN|rdma.AttrMaxQPRdAtomic)
}

// run plays rc_pingpong's loop: send when the previous send completed
// and a message arrived (the client starts), until ppIters each way.
// Every message received must be ours echoed, except the server's first,
// which is the tool's buffer as it starts (all 0x7b).
func (s *ppSide) run(t *testing.T, client bool) {
	t.Helper()
	send := []SendWR{{WRID: 0, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: sge(s.mr, 0, ppSize)}}
	var sent, received int
	sendPending, recvPending := false, true
	post := func() {
		if err := s.qp.PostSend(send); err != nil {
			t.Fatalf("post send %d: %v", sent, err)
		}
		sendPending, recvPending = true, true
	}
	if client {
		post()
	}
	initial := bytes.Repeat([]byte{0x7b}, ppSize)
	wcs := make([]WC, 8)
	repost := make([]RecvWR, 0, 8)
	ctx := waitCtx(t)
	for sent < ppIters || received < ppIters {
		n, err := s.cq.BusyPoll(ctx, wcs, 1)
		if err != nil {
			t.Fatalf("after %d sent, %d received: %v", sent, received, err)
		}
		repost = repost[:0]
		for _, wc := range wcs[:n] {
			if err := wc.Err(); err != nil {
				t.Fatalf("after %d sent, %d received: %v", sent, received, err)
			}
			if wc.Opcode == rdma.WCSend {
				sent++
				sendPending = false
				continue
			}
			slot := int(wc.WRID)
			got := s.mr.Bytes()[slot*ppSize : (slot+1)*ppSize]
			want := s.mr.Bytes()[:ppSize]
			if received == 0 && !client {
				want = initial
			}
			if wc.ByteLen != ppSize || !bytes.Equal(got, want) {
				t.Fatalf("message %d: %d bytes, content as expected: %v", received, wc.ByteLen, bytes.Equal(got, want))
			}
			received++
			recvPending = false
			repost = append(repost, s.recv(slot))
		}
		if err := s.qp.PostRecv(repost); err != nil {
			t.Fatal(err)
		}
		if sent < ppIters && !sendPending && !recvPending {
			post()
		}
	}
}

// startPingpong runs ibv_rc_pingpong with args and returns a func that
// waits for it and returns its output.
func startPingpong(t *testing.T, args ...string) func() (string, error) {
	t.Helper()
	args = append([]string{"-d", os.Getenv("LAB_DEV"), "-g", os.Getenv("LAB_GID_INDEX"), "-n", strconv.Itoa(ppIters)}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*wcTimeout)
	cmd := exec.CommandContext(ctx, "ibv_rc_pingpong", args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("ibv_rc_pingpong: %v", err)
	}
	waited := false
	wait := func() (string, error) {
		waited = true
		defer cancel()
		err := cmd.Wait()
		return out.String(), err
	}
	t.Cleanup(func() {
		if !waited {
			cancel()
			cmd.Wait()
		}
	})
	return wait
}

// checkPingpong checks the tool's verdict and that it saw our address.
func checkPingpong(t *testing.T, s *ppSide, out string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("ibv_rc_pingpong failed: %v\n%s", err, out)
	}
	ours := fmt.Sprintf("remote address: LID 0x%04x, QPN 0x%06x, PSN 0x%06x", s.local.LID, s.local.QPN, s.local.PSN)
	if !strings.Contains(out, ours) {
		t.Errorf("ibv_rc_pingpong did not print our address %q:\n%s", ours, out)
	}
	if !strings.Contains(out, fmt.Sprintf("%d iters in", ppIters)) {
		t.Errorf("ibv_rc_pingpong did not finish %d iterations:\n%s", ppIters, out)
	}
	t.Logf("ibv_rc_pingpong says:\n%s", out)
}

func TestPingpongWithRcPingpongAsServer(t *testing.T) {
	labkit.Clean(t)
	s := newPPSide(t)
	const port = "18601"
	wait := startPingpong(t, "-p", port)
	ctx := waitCtx(t)
	var remote oob.Dest
	var err error
	for { // the tool needs a moment to listen
		remote, err = oob.Dial(ctx, net.JoinHostPort(os.Getenv("LAB_IP"), port), s.local)
		if !errors.Is(err, syscall.ECONNREFUSED) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !remote.HasGID() {
		t.Fatalf("the server sent no GID: %v", remote)
	}
	if err := s.connect(remote); err != nil {
		t.Fatal(err)
	}
	s.run(t, true)
	out, err := wait()
	checkPingpong(t, s, out, err)
}

func TestPingpongWithRcPingpongAsClient(t *testing.T) {
	labkit.Clean(t)
	s := newPPSide(t)
	l, err := oob.Listen(":18602")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	wait := startPingpong(t, "-p", "18602", os.Getenv("LAB_IP"))
	if _, err := oob.Accept(waitCtx(t), l, s.local, s.connect, nil); err != nil {
		t.Fatal(err)
	}
	s.run(t, false)
	out, err := wait()
	checkPingpong(t, s, out, err)
}
