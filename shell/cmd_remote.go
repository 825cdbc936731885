package shell

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/verbscope/verbscope/oob"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "listen", usage: "listen QP [port=18515] [addr=IP] [timeout=60s]",
		summary: "wait for a peer on another host and connect a QP to it (ibv_rc_pingpong's exchange, as its server)",
		help: `Waits for one client over TCP, exchanges LID:QPN:PSN:GID the way
ibv_rc_pingpong does, moves the QP to RTR and RTS toward the client before
answering (the client sends as soon as it has the answer), and returns.
The client may be ibv_rc_pingpong itself or another verbscope shell
('dial'). Post receives before: the client may send at once. A
connection that sends no well-formed address (a port scan, a health
check) is dropped with a note, and the wait goes on; addr= listens on one
of the host's addresses instead of all of them.

examples:
  open; pd; cq; mr; qp
  next qp1; post recv qp1 mr1[0:4096]; listen qp1     # receives need INIT; the peer may send at once
  qp; listen qp2 port=18516 timeout=5m`,
		pos: []argKind{objArg(rdma.KindQP)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{{name: "port", help: "TCP port; default 18515, rc_pingpong's"},
				{name: "addr", help: "the local IP address to listen on; default every address"}, timeoutKey}
		},
		run: runListen,
	})
	register(&command{
		name: "dial", usage: "dial QP HOST[:PORT] [timeout=60s]",
		summary: "connect a QP to a peer on another host (ibv_rc_pingpong's exchange, as its client)",
		help: `Connects over TCP to a server ('listen' in another shell, or
ibv_rc_pingpong without a host name), exchanges LID:QPN:PSN:GID, and moves
the QP to RTR and RTS toward it. While the server is not listening yet, it
keeps trying until timeout.

examples:
  open; pd; cq; qp; qp
  dial qp1 10.0.0.1     # the peer runs listen, or ibv_rc_pingpong
  dial qp2 10.0.0.1:18516`,
		pos:  []argKind{objArg(rdma.KindQP), {name: "host"}},
		keys: func(*Shell, []string) []keySpec { return []keySpec{timeoutKey} },
		run:  runDial,
	})
	register(&command{
		name: "announce", usage: "announce QP MR",
		summary: "send the peer an MR's address and rkey, so it can RDMA to it (peer.NAME on its side)",
		help: `RDMA needs the peer's buffer address and rkey; programs send them in
an ordinary message. 'announce' does that: a small SEND the peer's shell
recognizes when it polls the receive, after which it can name the buffer
as peer.MR (e.g. post write qp1 mr1[0:5] peer.mr1[0]). The peer must have
a receive posted.

examples:
  open; pd; cq; mr; qp; qp; connect qp1 qp2; post recv qp2 mr1[0:64]
  announce qp1 mr1`,
		pos: []argKind{objArg(rdma.KindQP), objArg(rdma.KindMR)},
		run: runAnnounce,
	})
}

var timeoutKey = keySpec{name: "timeout", help: "give up after; default 60s"}

// exchangeSetup readies a QP for the exchange: INIT (rc_pingpong creates
// its QP in INIT), and its side of the address.
func (s *Shell) exchangeSetup(e *entry, a *args) (oob.Dest, time.Duration, string, error) {
	typ := e.qp.Type()
	if typ != rdma.QPTypeRC && typ != rdma.QPTypeUC {
		return oob.Dest{}, 0, "", &Error{What: "the pingpong exchange connects RC and UC QPs; " + e.name + " is " + typ.String()}
	}
	timeout := 60 * time.Second
	if v, ok := a.str("timeout"); ok {
		d, err := time.ParseDuration(v)
		if err != nil {
			return oob.Dest{}, 0, "", &Error{What: "timeout=" + v + " is not a duration", Fix: "like timeout=30s or timeout=5m"}
		}
		timeout = d
	}
	var steps strings.Builder
	st, err := qpState(e)
	if err != nil {
		return oob.Dest{}, 0, "", err
	}
	if st == rdma.QPStateReset {
		res, err := s.nextStep(e, nil, false)
		if err != nil {
			return oob.Dest{}, 0, "", err
		}
		steps.WriteString(res.Text + "\n")
	} else if st != rdma.QPStateInit {
		return oob.Dest{}, 0, "", &Error{What: e.name + " is in " + st.String() + "; the exchange starts from RESET or INIT",
			Fix: "modify " + e.name + " reset, or use a fresh QP"}
	}
	me, err := s.loopbackPeer(e)
	if err != nil {
		return oob.Dest{}, 0, "", err
	}
	ctx := e.parent.parent.ctx
	port, err := ctx.QueryPort(1)
	if err != nil {
		return oob.Dest{}, 0, "", failed("query port", err)
	}
	return oob.Dest{LID: port.LID, QPN: me.QPN, PSN: me.PSN, GID: me.GID}, timeout, steps.String(), nil
}

// connectTo takes e to RTR and RTS toward remote, printing each step.
func (s *Shell) connectTo(e *entry, remote oob.Dest, out *strings.Builder) error {
	e.peer = &rdma.Peer{QPN: remote.QPN, PSN: remote.PSN, LID: remote.LID, GID: verbs.GID(remote.GID)}
	for i := 0; i < 2; i++ {
		res, err := s.nextStep(e, nil, false)
		if err != nil {
			return err
		}
		out.WriteString(res.Text + "\n")
	}
	return nil
}

func runListen(ctx context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	port, err := a.uint("port", oob.DefaultPort, 65535)
	if err != nil {
		return Result{}, err
	}
	host, _ := a.str("addr")
	if host != "" && net.ParseIP(host) == nil {
		return Result{}, &Error{What: fmt.Sprintf("addr=%s is not an IP address", host),
			Fix: "give one of this host's addresses (ip -br addr shows them), or leave addr= out to listen on all"}
	}
	local, timeout, steps, err := s.exchangeSetup(e, a)
	if err != nil {
		return Result{}, err
	}
	l, err := oob.Listen(net.JoinHostPort(host, strconv.Itoa(int(port))))
	if err != nil {
		return Result{}, &Error{Output: steps, What: "listen: " + strings.TrimPrefix(err.Error(), "oob: "), Err: err,
			Fix: "another listener (ibv_rc_pingpong?) may hold the port: pick another with port="}
	}
	defer l.Close()
	var out strings.Builder
	out.WriteString(steps)
	fmt.Fprintf(&out, "  local address:  %s\nlistening on TCP port %d\n", local, port)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var remote oob.Dest
	waiting := fmt.Sprintf("%s: listening on TCP port %d for a peer (ibv_rc_pingpong or `dial`), up to %s", e.name, port, timeout)
	s.waitUnlocked(e.name, waiting, func() {
		remote, err = oob.Accept(wctx, l, local, func(remote oob.Dest) error {
			// The peer is here: back under the lock to modify the QP.
			s.mu.Lock()
			defer s.mu.Unlock()
			fmt.Fprintf(&out, "  remote address: %s\n", remote)
			s.progress(e.name, "%s: a peer came: %s; connecting", e.name, remote)
			return s.connectTo(e, remote, &out)
		}, func(from string, err error) {
			s.progress(e.name, "%s: %s is not a peer (%s); still waiting", e.name, from, strings.TrimPrefix(err.Error(), "oob: "))
		})
	})
	if err != nil {
		return Result{}, exchangeErr("listen", e, out.String(), err)
	}
	return exchangeResult(e, remote, &out), nil
}

// exchangeErr explains a failed or cancelled exchange, keeping what was
// done before it (the QP's steps, the addresses) as the error's output.
func exchangeErr(op string, e *entry, out string, err error) error {
	var se *Error
	if errors.As(err, &se) {
		c := *se
		c.Output = out + c.Output
		return &c
	}
	fix := "check that the peer runs and that the host and port are right; `" + op + "` again with the QP as it is (INIT) or a fresh QP"
	switch {
	case errors.Is(err, context.Canceled):
		fix = e.name + " stays where it is; run `" + op + "` again when the peer is ready"
	case errors.Is(err, context.DeadlineExceeded):
		fix = "give the peer longer with timeout=, e.g. timeout=5m"
	}
	return &Error{Output: out, What: op + ": " + strings.TrimPrefix(err.Error(), "oob: "), Fix: fix, Err: err}
}

func runDial(ctx context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	addr := a.pos[1]
	if _, _, err := net.SplitHostPort(addr); err != nil {
		addr = net.JoinHostPort(addr, strconv.Itoa(oob.DefaultPort))
	}
	local, timeout, steps, err := s.exchangeSetup(e, a)
	if err != nil {
		return Result{}, err
	}
	var out strings.Builder
	out.WriteString(steps)
	fmt.Fprintf(&out, "  local address:  %s\n", local)
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// Unlike rc_pingpong, keep trying while nobody listens yet: two
	// scripts started together need not race.
	var remote oob.Dest
	waiting := fmt.Sprintf("%s: dialing %s (retrying while nobody listens), up to %s", e.name, addr, timeout)
	s.waitUnlocked(e.name, waiting, func() {
		for {
			remote, err = oob.Dial(wctx, addr, local)
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || wctx.Err() != nil {
				return
			}
			select {
			case <-wctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
		}
	})
	if err != nil {
		return Result{}, exchangeErr("dial", e, out.String(), err)
	}
	fmt.Fprintf(&out, "  remote address: %s\n", remote)
	if err := s.connectTo(e, remote, &out); err != nil {
		return Result{}, exchangeErr("dial", e, out.String(), err)
	}
	return exchangeResult(e, remote, &out), nil
}

func exchangeResult(e *entry, remote oob.Dest, out *strings.Builder) Result {
	fmt.Fprintf(out, "%s is connected to QP %d on the peer", e.name, remote.QPN)
	return Result{Text: out.String(), Data: map[string]any{"qp": e.name, "remote_qpn": remote.QPN, "remote_psn": remote.PSN,
		"remote_gid": verbs.GID(remote.GID).String(), "remote_lid": remote.LID}}
}

// announceMagic starts an announcement message; the rest is
// "NAME ADDR RKEY LEN" in text, so a person reading a dump can follow it.
const announceMagic = "VSMR1 "

// remoteMR is a peer's MR as its announcement described it.
type remoteMR struct {
	addr uint64
	rkey uint32
	size uint64
}

func runAnnounce(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(2, 2); err != nil {
		return Result{}, err
	}
	qe, err := s.get(a.pos[0], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	me, err := s.get(a.pos[1], rdma.KindMR)
	if err != nil {
		return Result{}, err
	}
	msg := fmt.Sprintf("%s%s 0x%x 0x%x %d", announceMagic, me.name, me.mr.Addr(), me.mr.RKey(), me.mr.Len())
	buf, err := s.scratchMR(qe.parent, len(msg))
	if err != nil {
		return Result{}, err
	}
	copy(buf.Bytes(), msg)
	s.wrid++
	wr := verbs.SendWR{WRID: s.wrid, Opcode: rdma.WRSend, Flags: rdma.SendSignaled, SGEs: []verbs.SGE{{MR: buf, Length: uint32(len(msg))}}}
	if err := qe.qp.PostSend([]verbs.SendWR{wr}); err != nil {
		return Result{}, failed("announce", err)
	}
	return Result{Text: fmt.Sprintf("sent %q on %s (wrid %d); the peer's shell will know it as peer.%s when it polls the receive", msg, qe.name, s.wrid, me.name),
		Data: map[string]any{"qp": qe.name, "mr": me.name, "wrid": s.wrid}}, nil
}

// scratchMR is a small MR of the shell's own in a PD, for messages the
// shell composes; it is destroyed with its PD.
func (s *Shell) scratchMR(pd *entry, size int) (*verbs.MR, error) {
	if mr := s.scratch[pd]; mr != nil && !mr.Closed() && mr.Len() >= size {
		return mr, nil
	}
	mr, err := pd.pd.RegMR(max(size, 256), rdma.AccessLocalWrite)
	if err != nil {
		return nil, failed("announce", err)
	}
	s.scratch[pd] = mr
	return mr, nil
}

// noteAnnouncement records a peer's MR from a received message.
func (s *Shell) noteAnnouncement(data []byte) (string, bool) {
	text, ok := strings.CutPrefix(strings.TrimRight(string(data), "\x00"), announceMagic)
	if !ok {
		return "", false
	}
	var name string
	var m remoteMR
	if _, err := fmt.Sscanf(text, "%s 0x%x 0x%x %d", &name, &m.addr, &m.rkey, &m.size); err != nil || !nameRE().MatchString(name) {
		return "", false
	}
	s.remote["peer."+name] = m
	return fmt.Sprintf("the peer announced %s: 0x%x rkey 0x%x, %d bytes; use peer.%s[OFFSET] as a remote buffer", name, m.addr, m.rkey, m.size, name), true
}
