package shell

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "post", usage: "post OP QP LOCAL [REMOTE] [imm=N] [compare=N swap=N | add=N] [count=N] [wrid=N] [--inline --solicited --unsignaled --fence --force]",
		summary: "post a work request: send, recv, write, read, cas, faa (ibv_post_send / ibv_post_recv)",
		help: `OP is send, send_imm, recv, write, write_imm, read, cas (compare and
swap) or faa (fetch and add). LOCAL is this side's buffer, MR[START:END];
REMOTE is the peer's, MR[OFFSET] for an MR of this session (its address
and rkey are filled in) or raddr=ADDR rkey=KEY for a remote host's.
Before posting, the shell checks what the device would otherwise answer
with an error completion: the QP's state, whether its type allows the
opcode, the ranges, and the access flags of the remote MR and QP.
--force posts anyway, to watch the error happen. count=N posts N copies
in one ibv_post_send call.

examples:
  open; pd; cq; mr access=local_write,remote_write,remote_read,remote_atomic; mr access=local_write,remote_write,remote_read,remote_atomic
  qp; qp; connect qp1 qp2
  post recv qp2 mr2[0:4096]
  post send qp1 mr1[0:4]
  post write qp1 mr1[0:5] mr2[0]
  post read qp1 mr1[0:8] mr2[0]
  post cas qp1 mr1[0:8] mr2[0] compare=0 swap=42
  post faa qp1 mr1[0:8] mr2[0] add=1
  qp type=ud as=ud1; qp type=ud as=ud2; next ud1; next ud1; next ud1; next ud2; next ud2; ah dgid=10.0.0.1
  post send ud1 mr1[0:4] ah=ah1 remote_qpn=ud2 qkey=0x11111111     # UD: an address handle and the peer QP`,
		flags: []flagSpec{{"inline", "copy the data into the WR (IBV_SEND_INLINE)"}, {"solicited", "wake a receiver waiting for solicited events"},
			{"unsignaled", "no completion unless it fails (needs sig_all=0 on the QP)"}, {"fence", "wait for earlier RDMA reads and atomics"},
			{"force", "post even if the shell expects it to fail"}},
		pos: []argKind{{name: "op", items: func(*Shell, []string) []Suggestion {
			return enumValues("send", "SEND: the peer's next receive gets the data", "recv", "post a receive buffer", "write", "RDMA WRITE into the peer's MR",
				"read", "RDMA READ from the peer's MR", "cas", "atomic compare and swap (8 bytes)", "faa", "atomic fetch and add (8 bytes)",
				"send_imm", "SEND with 32-bit immediate data", "write_imm", "RDMA WRITE with immediate (consumes a receive)")(nil)
		}}, objArg(rdma.KindQP), objArg(rdma.KindMR), objArg(rdma.KindMR)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{
				{name: "imm", help: "immediate data (send_imm, write_imm)"}, {name: "compare", help: "cas: the value expected"},
				{name: "swap", help: "cas: the value stored on a match"}, {name: "add", help: "faa: the value added"},
				{name: "count", help: "post this many copies in one call"}, {name: "wrid", help: "work request id (default: the next number)"},
				{name: "raddr", help: "remote address (another host's MR)"}, {name: "rkey", help: "remote key (another host's MR)"},
				{name: "ah", help: "UD: address handle", values: namesOf(rdma.KindAH)}, {name: "remote_qpn", help: "UD: the peer QP (number or name)", values: namesOf(rdma.KindQP)},
				{name: "qkey", help: "UD: the peer's Q_Key"},
			}
		},
		run: runPost,
	})
	register(&command{
		name: "poll", aliases: []string{"poll_cq"}, usage: "poll CQ [max=N] [wait=DURATION] [until=OPCODE]",
		summary: "take completions off a CQ (ibv_poll_cq) and show what happened, with received data",
		help: `Polls until at least one completion arrives or wait= passes
(default 2s; wait=0 polls once). until= keeps polling (within wait)
until a completion of that kind arrives: send, recv, rdma_write,
rdma_read, comp_swap, fetch_add, recv_rdma_with_imm, or error. Errors are
explained; a RECV shows the bytes that arrived. It spins for the first
2 ms, then polls every few ms: a long wait does not hold a CPU (to sleep
until the completion instead, see wait).

examples:
  open; pd; cq; mr; qp; qp; connect qp1 qp2; post recv qp2 mr1[0:64]; post send qp1 mr1[0:4]
  poll cq1
  poll cq1 max=32 wait=1s
  post recv qp2 mr1[0:64]; post send qp1 mr1[0:4]; poll cq1 until=recv wait=30s`,
		pos: []argKind{objArg(rdma.KindCQ)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{{name: "max", help: "most completions to take; default 16"}, {name: "wait", help: "how long to wait for the first; default 2s"},
				{name: "until", help: "keep polling until a completion of this kind", values: enumValues("recv", "", "send", "", "rdma_write", "", "rdma_read", "", "recv_rdma_with_imm", "", "error", "any failed completion")}}
		},
		run: runPoll,
	})
	register(&command{
		name: "wait", usage: "wait CQ [timeout=DURATION]",
		summary: "sleep on the CQ's completion channel until a completion arrives (ibv_req_notify_cq + ibv_get_cq_event), then poll",
		help: `The CQ must have a channel. It arms the CQ, polls once (a completion
may already be there), then sleeps; Ctrl-C interrupts the wait.

examples:
  open; pd; channel; cq channel=ch1; mr; qp; qp; connect qp1 qp2
  post recv qp2 mr1[0:64]; post send qp1 mr1[0:4]; wait cq1 timeout=30s`,
		pos: []argKind{objArg(rdma.KindCQ)},
		keys: func(*Shell, []string) []keySpec {
			return []keySpec{{name: "timeout", help: "give up after; default 5s"}}
		},
		run: runWait,
	})
	register(&command{
		name: "events", usage: "events",
		summary: "the asynchronous events the devices reported (QP_FATAL, CQ_ERR, PORT_ERR…)",
		help: `Events also show up with the command during which they arrived.
(rxe on Linux 6.1 reports QP errors only in completions, never as QP
events; CQ overruns do raise CQ_ERR.)

example:
  events`,
		run: runEvents,
	})
}

// opInfo is what a post OP means.
type opInfo struct {
	op     verbs.WROpcode
	recv   bool
	remote bool              // needs a remote buffer
	access verbs.AccessFlags // what the remote MR and QP must allow
	types  []verbs.QPType    // QP types that allow it (ibv_post_send(3) table)
}

var rcOnly = []verbs.QPType{rdma.QPTypeRC}
var connected = []verbs.QPType{rdma.QPTypeRC, rdma.QPTypeUC}
var anyType = []verbs.QPType{rdma.QPTypeRC, rdma.QPTypeUC, rdma.QPTypeUD}

var postOps = map[string]opInfo{
	"send":      {op: rdma.WRSend, types: anyType},
	"send_imm":  {op: rdma.WRSendWithImm, types: anyType},
	"recv":      {recv: true, types: anyType},
	"write":     {op: rdma.WRRDMAWrite, remote: true, access: rdma.AccessRemoteWrite, types: connected},
	"write_imm": {op: rdma.WRRDMAWriteWithImm, remote: true, access: rdma.AccessRemoteWrite, types: connected},
	"read":      {op: rdma.WRRDMARead, remote: true, access: rdma.AccessRemoteRead, types: rcOnly},
	"cas":       {op: rdma.WRAtomicCmpAndSwp, remote: true, access: rdma.AccessRemoteAtomic, types: rcOnly},
	"faa":       {op: rdma.WRAtomicFetchAndAdd, remote: true, access: rdma.AccessRemoteAtomic, types: rcOnly},
}

func postOpNames() []string { return sortedKeys(postOps) }

func runPost(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(3, 4); err != nil {
		return Result{}, err
	}
	opName := strings.ToLower(a.pos[0])
	info, ok := postOps[opName]
	if !ok {
		return Result{}, &Error{What: fmt.Sprintf("%q is not an operation%s", a.pos[0], suggest(opName, postOpNames())),
			Fix: "send, send_imm, recv, write, write_imm, read, cas or faa"}
	}
	qe, err := s.get(a.pos[1], rdma.KindQP)
	if err != nil {
		return Result{}, err
	}
	local, err := s.parseSpan(a.pos[2])
	if err != nil {
		return Result{}, err
	}
	force := a.flag("force")
	p := postPlan{s: s, a: a, qp: qe, info: info, opName: opName, local: local}
	if err := p.read(); err != nil {
		return Result{}, err
	}
	if !force {
		if err := p.check(); err != nil {
			return Result{}, err
		}
	}
	return p.post()
}

// postPlan is one post command on its way to the device.
type postPlan struct {
	s      *Shell
	a      *args
	qp     *entry
	info   opInfo
	opName string
	local  span
	remote *span // an MR of this session, for loopback RDMA
	raddr  uint64
	rkey   uint32
	count  int
	wr     verbs.SendWR
	ah     *entry
}

// read turns the arguments into a work request.
func (p *postPlan) read() error {
	a, s := p.a, p.s
	count, err := a.uint("count", 1, 4096)
	if err != nil {
		return err
	}
	p.count = int(count)
	wrid, err := a.uint("wrid", 0, 1<<63)
	if err != nil {
		return err
	}
	if _, given := a.str("wrid"); !given {
		s.wrid++
		wrid = s.wrid
	}
	p.wr.WRID = wrid
	if p.local.open && (p.info.op == rdma.WRAtomicCmpAndSwp || p.info.op == rdma.WRAtomicFetchAndAdd) {
		p.local.len = 8
	}
	if err := p.readRemote(); err != nil {
		return err
	}
	if err := p.readValues(); err != nil {
		return err
	}
	if err := p.readUD(); err != nil {
		return err
	}
	if err := a.unused([]string{"count", "wrid", "raddr", "rkey", "imm", "compare", "swap", "add", "ah", "remote_qpn", "qkey"}); err != nil {
		return err
	}
	p.wr.Opcode = p.info.op
	for flag, f := range map[string]verbs.SendFlags{"inline": rdma.SendInline, "solicited": rdma.SendSolicited, "fence": rdma.SendFence} {
		if a.flag(flag) {
			p.wr.Flags |= f
		}
	}
	if !a.flag("unsignaled") {
		p.wr.Flags |= rdma.SendSignaled
	}
	p.wr.SGEs = []verbs.SGE{{MR: p.local.e.mr, Offset: p.local.off, Length: uint32(p.local.len)}}
	p.wr.RemoteAddr, p.wr.RKey = p.raddr, p.rkey
	return nil
}

// readRemote reads the peer's buffer of an RDMA or atomic operation:
// peer.MR[OFFSET] (the connected peer's), an MR[OFFSET] of this session,
// or raddr= and rkey=; an operation without one takes none.
func (p *postPlan) readRemote() error {
	a, s := p.a, p.s
	if !p.info.remote {
		if len(a.pos) == 4 {
			return usageErr(a.cmd, "%s takes no remote buffer", p.opName)
		}
		return nil
	}
	switch {
	case len(a.pos) == 4 && strings.HasPrefix(a.pos[3], "peer."):
		var err error
		p.raddr, p.rkey, err = s.parsePeerSpan(a.pos[3], p.local.len)
		return err
	case len(a.pos) == 4:
		r, err := s.parseSpan(a.pos[3])
		if err != nil {
			return err
		}
		p.remote = &r
		p.raddr, p.rkey = r.e.mr.Addr()+r.off, r.e.mr.RKey()
		return nil
	}
	raddr, err := a.uint("raddr", 0, 1<<64-1)
	if err != nil {
		return err
	}
	rkey, err := a.uint("rkey", 0, 1<<32-1)
	if err != nil {
		return err
	}
	if _, ok := a.str("raddr"); !ok {
		return usageErr(a.cmd, "%s needs the peer's buffer: MR[OFFSET] of this session, or raddr= and rkey=", p.opName)
	}
	p.raddr, p.rkey = raddr, uint32(rkey)
	return nil
}

// readValues reads the immediate (imm= makes a send or write its _imm
// form) and the atomic operands (compare= or add=, swap=).
func (p *postPlan) readValues() error {
	a := p.a
	imm, err := a.uint("imm", 0, 1<<32-1)
	if err != nil {
		return err
	}
	if _, given := a.str("imm"); given {
		switch p.info.op {
		case rdma.WRSend:
			p.info, p.opName = postOps["send_imm"], "send_imm"
		case rdma.WRRDMAWrite:
			p.info, p.opName = postOps["write_imm"], "write_imm"
		}
	}
	p.wr.Imm = uint32(imm)
	cmpAdd, err := a.uint(map[bool]string{true: "add", false: "compare"}[p.info.op == rdma.WRAtomicFetchAndAdd], 0, 1<<64-1)
	if err != nil {
		return err
	}
	swap, err := a.uint("swap", 0, 1<<64-1)
	if err != nil {
		return err
	}
	p.wr.CompareAdd, p.wr.Swap = cmpAdd, swap
	return nil
}

// readUD reads a UD send's address: ah=, remote_qpn= and qkey=.
func (p *postPlan) readUD() error {
	a, s := p.a, p.s
	var err error
	if name, ok := a.str("ah"); ok {
		if p.ah, err = s.get(name, rdma.KindAH); err != nil {
			return err
		}
		p.wr.AH = p.ah.ah
	}
	if v, ok := a.str("remote_qpn"); ok {
		// The same spelling as a QP's dest_qpn: a number, or a QP here.
		var attr verbs.QPAttr
		var m verbs.QPAttrMask
		if err := s.setAttr(&attr, &m, "dest_qpn", v); err != nil {
			return err
		}
		p.wr.RemoteQPN = attr.DestQPN
	}
	qkey, err := a.uint("qkey", 0, 1<<32-1)
	if err != nil {
		return err
	}
	p.wr.RemoteQKey = uint32(qkey)
	return nil
}

// check predicts the errors the device would report, in words.
func (p *postPlan) check() error {
	qp := p.qp
	typ := qp.qp.Type()
	if !p.info.recv {
		driver := ""
		if d, err := qp.parent.parent.ctx.QueryDevice(); err == nil {
			driver = rdma.DriverForVendor(d.VendorID)
		}
		for _, f := range rdma.CheckSend(typ, p.info.op, p.wr.Flags, qp.qp.InitAttr().SigAll, driver) {
			if f.Severity == rdma.SevError {
				return &Error{What: fmt.Sprintf("%s: %s", p.opName, f.Problem), Why: f.Why, Fix: f.Fix}
			}
		}
	}
	st, err := qpState(qp)
	if err != nil {
		return err
	}
	if p.info.recv && !st.Allows().PostRecv {
		return &Error{What: qp.name + " is in RESET, where receives cannot be posted",
			Fix: "move it to INIT first (`next " + qp.name + "`); receives may be posted from INIT on"}
	}
	if !p.info.recv && !st.Allows().SendsRun {
		return &Error{What: fmt.Sprintf("%s is in %s, but sends need RTS", qp.name, st),
			Why: "only a QP in RTS processes its send queue",
			Fix: "walk it to RTS: `next " + qp.name + "` until it says RTS, or `connect`"}
	}
	needLocal := p.info.recv || p.info.op == rdma.WRRDMARead || p.info.op == rdma.WRAtomicCmpAndSwp || p.info.op == rdma.WRAtomicFetchAndAdd
	if needLocal && p.local.e.mr.Access()&rdma.AccessLocalWrite == 0 {
		return &Error{What: p.local.e.name + " lacks LOCAL_WRITE, but the device must write into it",
			Why: "receives, RDMA read results and atomic old values land in the local buffer", Fix: "register it with access=local_write"}
	}
	if p.info.op == rdma.WRAtomicCmpAndSwp || p.info.op == rdma.WRAtomicFetchAndAdd {
		if p.local.len != 8 || p.raddr%8 != 0 {
			return &Error{What: "atomics work on 8 bytes at an 8-byte aligned remote address",
				Fix: "use a local range of 8 bytes (MR[0:8]) and a remote offset divisible by 8"}
		}
	}
	if p.remote != nil {
		if p.remote.e.mr.Access()&p.info.access == 0 {
			return &Error{What: fmt.Sprintf("%s was registered without %s, so the peer will refuse this %s", p.remote.e.name, strings.ToUpper(p.info.access.String()), p.opName),
				Why: "the remote side checks the rkey's access: the completion would be REM_ACCESS_ERR and the QP would go to ERR",
				Fix: "register the remote MR with access=local_write," + strings.ToLower(p.info.access.String()) + "; or add --force to see the error happen"}
		}
		if peer := p.s.qpByNum(destQPN(qp)); peer != nil {
			if a, err := peer.qp.Query(rdma.AttrAccessFlags); err == nil && a.AccessFlags&p.info.access == 0 {
				return &Error{What: fmt.Sprintf("the peer QP %s does not allow %s (its access flags are %s)", peer.name, strings.ToUpper(p.info.access.String()), a.AccessFlags),
					Why: "a responder QP checks its own access flags too: the completion would be REM_INV_REQ_ERR or REM_ACCESS_ERR",
					Fix: "set access=" + strings.ToLower(p.info.access.String()) + " on " + peer.name + " (at INIT, or RTS→RTS); or --force"}
			}
		}
	}
	return nil
}

func destQPN(e *entry) uint32 {
	a, err := e.qp.Query(rdma.AttrDestQPN)
	if err != nil {
		return 0
	}
	return a.DestQPN
}

func (p *postPlan) post() (Result, error) {
	wrs := make([]verbs.SendWR, p.count)
	for i := range wrs {
		wrs[i] = p.wr
		wrs[i].WRID = p.wr.WRID + uint64(i)
	}
	if p.count > 1 && p.a.kv["wrid"] == "" {
		p.s.wrid += uint64(p.count - 1)
	}
	var err error
	if p.info.recv {
		rwrs := make([]verbs.RecvWR, p.count)
		for i := range rwrs {
			rwrs[i] = verbs.RecvWR{WRID: wrs[i].WRID, SGEs: wrs[i].SGEs}
		}
		err = p.qp.qp.PostRecv(rwrs)
	} else {
		err = p.qp.qp.PostSend(wrs)
	}
	if err != nil {
		return Result{}, failed("post "+p.opName+" on "+p.qp.name, err)
	}
	for _, w := range wrs {
		p.s.posted[w.WRID] = postedWR{qp: p.qp.name, op: p.opName, local: p.local}
	}
	what := fmt.Sprintf("posted %s on %s: wrid %d, %d bytes of %s at offset %d", strings.ToUpper(p.opName), p.qp.name, p.wr.WRID, p.local.len, p.local.e.name, p.local.off)
	if p.count > 1 {
		what = fmt.Sprintf("posted %d × %s on %s in one call: wrids %d-%d", p.count, strings.ToUpper(p.opName), p.qp.name, p.wr.WRID, p.wr.WRID+uint64(p.count-1))
	}
	if p.info.remote {
		what += fmt.Sprintf(", remote 0x%x rkey 0x%x", p.raddr, p.rkey)
	}
	return Result{Text: what, Data: map[string]any{"qp": p.qp.name, "op": p.opName, "wrid": p.wr.WRID, "count": p.count, "bytes": p.local.len}}, nil
}

// postedWR remembers what a WR pointed at, so a completion can show it.
type postedWR struct {
	qp    string
	op    string
	local span
}

func runPoll(ctx context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindCQ)
	if err != nil {
		return Result{}, err
	}
	maxN, err := a.uint("max", 16, verbs.PollBatch)
	if err != nil {
		return Result{}, err
	}
	wait := 2 * time.Second
	if v, ok := a.str("wait"); ok {
		if wait, err = time.ParseDuration(v); err != nil && v != "0" {
			return Result{}, &Error{What: "wait=" + v + " is not a duration", Fix: "like wait=500ms or wait=5s"}
		}
	}
	until, _ := a.str("until")
	if err := a.unused([]string{"max", "wait", "until"}); err != nil {
		return Result{}, err
	}
	done := func(wcs []verbs.WC) bool { return len(wcs) > 0 }
	if until != "" {
		want := strings.ToUpper(until)
		done = func(wcs []verbs.WC) bool {
			for _, wc := range wcs {
				if (want == "ERROR" && wc.Status != rdma.WCSuccess) || (wc.Status == rdma.WCSuccess && wc.Opcode.String() == want) {
					return true
				}
			}
			return false
		}
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var got []verbs.WC
	waited := false
	wcs := make([]verbs.WC, max(1, maxN))
	for {
		n, err := e.cq.Poll(wcs)
		if err != nil {
			return Result{}, failed("poll "+e.name, err)
		}
		got = append(got, wcs[:n]...)
		if done(got) || len(got) >= int(maxN) || wait == 0 {
			break
		}
		if n == 0 {
			waiting := ""
			if !waited {
				waited = true
				waiting = fmt.Sprintf("%s: waiting up to %s for a completion", e.name, wait)
			}
			s.waitUnlocked(e.name, waiting, func() { n, err = e.cq.Await(wctx, wcs, 1) })
			got = append(got, wcs[:n]...)
			if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
				break
			}
			if err != nil {
				return Result{}, failed("poll "+e.name, err)
			}
		}
	}
	res := s.showCompletions(e, got)
	if !done(got) && wait > 0 {
		what := "no completion"
		if until != "" {
			what = "no " + until + " completion"
		}
		res.Text = strings.TrimSuffix(res.Text, e.name+": empty")
		res.Text = strings.TrimLeft(res.Text+"\n"+fmt.Sprintf("%s: %s within %s", e.name, what, wait), "\n")
	}
	return res, nil
}

// showCompletions prints completions the way a learner needs them: the
// request they finish, what happened, the data that arrived, and for
// errors, why.
func (s *Shell) showCompletions(cq *entry, wcs []verbs.WC) Result {
	var b strings.Builder
	var data []map[string]any
	if len(wcs) == 0 {
		return Result{Text: cq.name + ": empty", Data: []any{}}
	}
	fmt.Fprintf(&b, "%s: %d completion(s)\n", cq.name, len(wcs))
	for _, wc := range wcs {
		d := map[string]any{"wrid": wc.WRID, "status": wc.Status.String(), "qp_num": wc.QPNum}
		line := fmt.Sprintf("  wrid %-4d %-8s", wc.WRID, wc.Status)
		if wc.Status == rdma.WCSuccess {
			line = fmt.Sprintf("  wrid %-4d %-18s %s", wc.WRID, wc.Opcode, "success")
			d["opcode"] = wc.Opcode.String()
			if wc.Opcode == rdma.WCRecvRDMAWithImm {
				// The data went where the peer's RDMA write pointed; the
				// receive only carried the immediate.
				line += fmt.Sprintf(", %d bytes written by the peer's RDMA write", wc.ByteLen)
				d["byte_len"] = wc.ByteLen
			} else if wc.Opcode&rdma.WCRecv != 0 {
				line += fmt.Sprintf(", %d bytes", wc.ByteLen)
				d["byte_len"] = wc.ByteLen
				if pw, ok := s.posted[wc.WRID]; ok && !pw.local.e.closed() && wc.ByteLen > 0 {
					buf := make([]byte, min(uint64(wc.ByteLen), pw.local.len))
					pw.local.e.mr.ReadAt(buf, int64(pw.local.off))
					shown := buf[:min(len(buf), 64)]
					line += fmt.Sprintf(" into %s: %s", pw.local.e.name, quoteText(shown))
					d["data"] = printable(shown)
					if note, ok := s.noteAnnouncement(buf); ok {
						line += "\n      " + note
					}
				}
			}
			if wc.Flags&rdma.WCWithImm != 0 && wc.Opcode&rdma.WCRecv != 0 {
				line += fmt.Sprintf(", imm 0x%x", wc.Imm)
				d["imm"] = wc.Imm
			}
		} else {
			line += "\n      " + wc.Status.Hint()
		}
		if qp := s.qpByNum(wc.QPNum); qp != nil {
			line += " (" + qp.name + ")"
			d["qp"] = qp.name
		}
		delete(s.posted, wc.WRID)
		b.WriteString(line + "\n")
		s.emit(front.Event{Kind: front.EventCompletion, Object: cq.name, Text: cq.name + ": " + strings.TrimSpace(strings.SplitN(line, "\n", 2)[0])})
		data = append(data, d)
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}
}

func runWait(ctx context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0], rdma.KindCQ)
	if err != nil {
		return Result{}, err
	}
	timeout := 5 * time.Second
	if v, ok := a.str("timeout"); ok {
		if timeout, err = time.ParseDuration(v); err != nil {
			return Result{}, &Error{What: "timeout=" + v + " is not a duration"}
		}
	}
	if err := a.unused([]string{"timeout"}); err != nil {
		return Result{}, err
	}
	if e.cq.Channel() == nil {
		return Result{}, &Error{What: e.name + " has no completion channel, so there is nothing to sleep on",
			Fix: "create the CQ with one (`channel; cq channel=ch1`), or use `poll`"}
	}
	wcs := make([]verbs.WC, 16)
	// Arm first, then poll: a completion between the two still wakes us.
	if err := e.cq.ReqNotify(false); err != nil {
		return Result{}, failed("wait", err)
	}
	n, err := e.cq.Poll(wcs)
	if err == nil && n == 0 {
		wctx, cancel := context.WithTimeout(ctx, timeout)
		waiting := fmt.Sprintf("%s: sleeping on its completion channel until a completion, up to %s", e.name, timeout)
		s.waitUnlocked(e.name, waiting, func() { _, err = e.cq.Channel().Wait(wctx) })
		cancel()
		if err != nil && ctx.Err() == nil {
			return Result{Text: fmt.Sprintf("%s: no completion event within %s", e.name, timeout), Data: []any{}}, nil
		}
		if err == nil {
			n, err = e.cq.Poll(wcs)
		}
	}
	if err != nil {
		return Result{}, failed("wait "+e.name, err)
	}
	return s.showCompletions(e, wcs[:n]), nil
}

func runEvents(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 0); err != nil {
		return Result{}, err
	}
	events := s.allEvents()
	if len(events) == 0 {
		return Result{Text: "no async events so far", Data: []any{}}, nil
	}
	var b strings.Builder
	var data []map[string]any
	for _, ev := range events {
		fmt.Fprintf(&b, "%s  %s: %s\n", ev.at.Format("15:04:05.000"), ev.text, ev.ev.Type.Meaning().What)
		data = append(data, map[string]any{"at": ev.at, "event": ev.ev.Type.String(), "what": ev.text})
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}
