package shell

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "open", usage: "open [DEVICE] [as=NAME]",
		summary: "open an RDMA device (ibv_open_device): the context everything else lives in",
		help: `Opens a device by name (tab completes them); with no name, the
session's default device or the first one listed. Every other object is
created from a context.

examples:
  open
  open rxe0 as=dev`,
		pos:  []argKind{{name: "device", items: deviceSuggestions}},
		keys: asKey,
		run:  runOpen,
	})
	register(&command{
		name: "devices", usage: "devices",
		summary: "list the RDMA devices of this host (ibv_get_device_list)",
		help: `example:
  devices; open rxe0`,
		run: runDevices,
	})
	register(&command{
		name: "pd", aliases: []string{"alloc_pd"}, usage: "pd [CTX] [as=NAME]",
		summary: "allocate a protection domain (ibv_alloc_pd): QPs and MRs must share one to work together",
		help: `examples:
  open; pd
  pd ctx1 as=pdA`,
		pos: []argKind{objArg(rdma.KindCtx)}, keys: asKey, run: runPD,
	})
	register(&command{
		name: "channel", usage: "channel [CTX] [as=NAME]",
		summary: "create a completion channel (ibv_create_comp_channel), to sleep until a CQ has work",
		help: `A CQ created with channel=CH can be waited on ('wait CQ') instead of
polled: the thread sleeps until the device signals a completion.

example:
  open; channel; cq size=16 channel=ch1; wait cq1 timeout=1s     # nothing to wait for yet`,
		pos: []argKind{objArg(rdma.KindCtx)}, keys: asKey, run: runChannel,
	})
	register(&command{
		name: "cq", aliases: []string{"create_cq"}, usage: "cq [CTX] [size=N] [channel=CH] [vector=N] [as=NAME]",
		summary: "create a completion queue (ibv_create_cq)",
		help: `A CQ collects completions of the QPs that use it. Its size bounds how
many completions can wait unpolled: overrun it and the CQ (and its QPs)
go to error. Providers round the size up; the granted size is shown.

examples:
  open
  cq size=16
  channel; cq size=64 channel=ch1`,
		pos: []argKind{objArg(rdma.KindCtx)},
		keys: func(*Shell, []string) []keySpec {
			return append([]keySpec{
				{name: "size", help: "entries (cqe); default 16", values: enumValues("16", "", "64", "", "256", "")},
				{name: "channel", help: "completion channel to report to", values: namesOf(rdma.KindChannel)},
				{name: "vector", help: "completion vector (0..num_comp_vectors-1)"},
			}, asSpec)
		},
		run: runCQ,
	})
	register(&command{
		name: "qp", aliases: []string{"create_qp"}, usage: "qp [PD] [type=rc|uc|ud] [cq=CQ | send_cq=CQ recv_cq=CQ] [send_wr=N recv_wr=N send_sge=N recv_sge=N inline=N] [sig_all=1] [as=NAME]",
		summary: "create a queue pair (ibv_create_qp); it starts in RESET",
		help: `A QP sends and receives. RC (reliable connected) acknowledges and
retransmits; UC (unreliable connected) does not; UD (unreliable datagram)
talks to any QP through address handles. Its send and receive completions
go to CQs (one CQ can serve both).

examples:
  open; pd; cq
  qp type=rc cq=cq1
  qp pd1 type=ud cq=cq1 send_wr=64 recv_wr=64`,
		pos: []argKind{objArg(rdma.KindPD)},
		keys: func(*Shell, []string) []keySpec {
			return append([]keySpec{
				{name: "type", help: "rc, uc or ud; default rc", values: enumValues("rc", "reliable connected", "uc", "unreliable connected", "ud", "unreliable datagram")},
				{name: "cq", help: "CQ for both send and receive completions", values: namesOf(rdma.KindCQ)},
				{name: "send_cq", help: "CQ for send completions", values: namesOf(rdma.KindCQ)},
				{name: "recv_cq", help: "CQ for receive completions", values: namesOf(rdma.KindCQ)},
				{name: "send_wr", help: "send queue depth; default 16"},
				{name: "recv_wr", help: "receive queue depth; default 16"},
				{name: "send_sge", help: "scatter/gather entries per send WR; default 1"},
				{name: "recv_sge", help: "scatter/gather entries per receive WR; default 1"},
				{name: "inline", help: "max inline data bytes; default 0"},
				{name: "sig_all", help: "1: every send WR completes (sq_sig_all); default 1", values: enumValues("1", "every send completes", "0", "only WRs posted signaled")},
			}, asSpec)
		},
		run: runQP,
	})
}

var asSpec = keySpec{name: "as", help: "name for the new object"}

func asKey(*Shell, []string) []keySpec { return []keySpec{asSpec} }

// namesOf completes object names of a kind as attribute values.
func namesOf(k kind) func(*Shell) []Suggestion {
	return func(s *Shell) []Suggestion {
		if s == nil {
			return nil
		}
		return objArg(k).items(s, nil)
	}
}

func deviceSuggestions(*Shell, []string) []Suggestion {
	devs, _ := verbs.Devices()
	var out []Suggestion
	for _, d := range devs {
		out = append(out, Suggestion{Text: d.Name, Description: d.Transport.String() + " " + verbs.GUIDString(d.GUID)})
	}
	return out
}

// pick resolves the optional positional object, defaulting to the only
// one of its kind.
func (s *Shell) pick(a *args, i int, k kind) (*entry, error) {
	if len(a.pos) > i {
		return s.get(a.pos[i], k)
	}
	return s.only(k)
}

func runOpen(_ context.Context, s *Shell, a *args) (Result, error) {
	as, err := s.wordAndName(a)
	if err != nil {
		return Result{}, err
	}
	name := s.opts.Device
	if len(a.pos) == 1 {
		name = a.pos[0]
	}
	if name == "" {
		devs, err := verbs.Devices()
		if err != nil || len(devs) == 0 {
			return Result{}, failed("open: no device to open", err)
		}
		name = devs[0].Name
	}
	c, err := verbs.Open(name)
	if err != nil {
		return Result{}, failed("open "+name, err)
	}
	e := s.add(&entry{kind: rdma.KindCtx, ctx: c, obj: c}, as)
	attr, _ := c.QueryDevice()
	return Result{
		Text: fmt.Sprintf("%s = device %s (%s, fw %s, %d port(s), max_qp %d)", e.name, name, c.Device.Transport, attr.FWVer, attr.PhysPortCnt, attr.MaxQP),
		Data: map[string]any{"name": e.name, "device": name, "guid": verbs.GUIDString(c.Device.GUID), "ports": attr.PhysPortCnt},
	}, nil
}

func runDevices(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 0); err != nil {
		return Result{}, err
	}
	devs, err := verbs.Devices()
	if err != nil && len(devs) == 0 {
		return Result{}, failed("devices", err)
	}
	var b strings.Builder
	var data []map[string]any
	for _, d := range devs {
		fmt.Fprintf(&b, "%-10s %-11s node GUID %s\n", d.Name, d.Transport, verbs.GUIDString(d.GUID))
		data = append(data, map[string]any{"name": d.Name, "transport": d.Transport.String(), "guid": verbs.GUIDString(d.GUID)})
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

// created formats the usual "qp1 = ..." line and its data.
func created(e *entry, detail string, data map[string]any) Result {
	if data == nil {
		data = map[string]any{}
	}
	data["name"] = e.name
	return Result{Text: e.name + " = " + detail, Data: data}
}

// wordAndName reads the line of open, pd and channel: at most one word and
// as=, the new object's name.
func (s *Shell) wordAndName(a *args) (string, error) {
	if err := a.posCount(0, 1); err != nil {
		return "", err
	}
	as, err := s.newName(a)
	if err != nil {
		return "", err
	}
	return as, a.unused([]string{"as"})
}

// runInCtx is the shape of pd and channel: an optional context, an
// optional as=, one create call.
func runInCtx(s *Shell, a *args, what string, create func(ctx *entry) (*entry, error)) (Result, error) {
	as, err := s.wordAndName(a)
	if err != nil {
		return Result{}, err
	}
	ctx, err := s.pick(a, 0, rdma.KindCtx)
	if err != nil {
		return Result{}, err
	}
	e, err := create(ctx)
	if err != nil {
		return Result{}, failed(a.cmd.name, err)
	}
	return created(s.add(e, as), what+" in "+ctx.name, nil), nil
}

func runPD(_ context.Context, s *Shell, a *args) (Result, error) {
	return runInCtx(s, a, "protection domain", func(ctx *entry) (*entry, error) {
		pd, err := ctx.ctx.AllocPD()
		return &entry{kind: rdma.KindPD, pd: pd, obj: pd, parent: ctx}, err
	})
}

func runChannel(_ context.Context, s *Shell, a *args) (Result, error) {
	return runInCtx(s, a, "completion channel", func(ctx *entry) (*entry, error) {
		ch, err := ctx.ctx.CreateCompChannel()
		return &entry{kind: rdma.KindChannel, ch: ch, obj: ch, parent: ctx}, err
	})
}

func runCQ(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	ctx, err := s.pick(a, 0, rdma.KindCtx)
	if err != nil {
		return Result{}, err
	}
	size, err := a.uint("size", 16, 1<<22)
	if err != nil {
		return Result{}, err
	}
	vector, err := a.uint("vector", 0, 1<<16)
	if err != nil {
		return Result{}, err
	}
	var ch *verbs.CompChannel
	if name, ok := a.str("channel"); ok {
		che, err := s.get(name, rdma.KindChannel)
		if err != nil {
			return Result{}, err
		}
		ch = che.ch
	}
	as, err := s.newName(a)
	if err != nil {
		return Result{}, err
	}
	if err := a.unused([]string{"size", "vector", "channel", "as"}); err != nil {
		return Result{}, err
	}
	if n, err := ctx.ctx.NumCompVectors(); err == nil && int(vector) >= n {
		return Result{}, &Error{What: fmt.Sprintf("vector=%d: %s has %d completion vector(s), numbered from 0", vector, ctx.name, n),
			Why: "a CQ reports through one of the device's completion vectors (num_comp_vectors); on a hardware device each is an interrupt (an MSI-X vector) with its own CPU affinity; the kernel refuses a vector past the last with EINVAL",
			Fix: fmt.Sprintf("give vector= below %d (`show %s` shows num_comp_vectors), or leave it out for vector 0", n, ctx.name)}
	}
	cq, err := ctx.ctx.CreateCQ(int(size), ch, int(vector))
	if err != nil {
		return Result{}, failed("cq", err)
	}
	e := s.add(&entry{kind: rdma.KindCQ, cq: cq, obj: cq, parent: ctx}, as)
	note := ""
	if cq.CQE() != int(size) {
		note = fmt.Sprintf(" (asked for %d; the provider rounds up)", size)
	}
	return created(e, fmt.Sprintf("completion queue with %d entries%s", cq.CQE(), note), map[string]any{"cqe": cq.CQE()}), nil
}

func runQP(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	pd, err := s.pick(a, 0, rdma.KindPD)
	if err != nil {
		return Result{}, err
	}
	typName, _ := a.str("type")
	if typName == "" {
		typName = "rc"
	}
	typ, ok := rdma.ParseQPType(typName)
	if !ok || (typ != rdma.QPTypeRC && typ != rdma.QPTypeUC && typ != rdma.QPTypeUD) {
		return Result{}, &Error{What: fmt.Sprintf("type=%s is not a QP type the shell creates", typName), Fix: "use type=rc, type=uc or type=ud"}
	}
	cqs := map[string]*entry{}
	for _, k := range []string{"cq", "send_cq", "recv_cq"} {
		if n, ok := a.str(k); ok {
			e, err := s.get(n, rdma.KindCQ)
			if err != nil {
				return Result{}, err
			}
			cqs[k] = e
		}
	}
	if cqs["cq"] == nil && (cqs["send_cq"] == nil || cqs["recv_cq"] == nil) {
		if only, err := s.only(rdma.KindCQ); err == nil {
			cqs["cq"] = only
		} else {
			return Result{}, &Error{What: "which CQ should the QP use?", Why: "every QP reports send and receive completions to a CQ",
				Fix: "give cq=CQ (or send_cq= and recv_cq=); create one with `cq size=16`"}
		}
	}
	send, recv := cqs["send_cq"], cqs["recv_cq"]
	if send == nil {
		send = cqs["cq"]
	}
	if recv == nil {
		recv = cqs["cq"]
	}
	var caps [5]uint64
	for i, k := range []string{"send_wr", "recv_wr", "send_sge", "recv_sge", "inline"} {
		def := []uint64{16, 16, 1, 1, 0}[i]
		if caps[i], err = a.uint(k, def, 1<<24); err != nil {
			return Result{}, err
		}
	}
	sigAll, err := a.uint("sig_all", 1, 1)
	if err != nil {
		return Result{}, err
	}
	as, err := s.newName(a)
	if err != nil {
		return Result{}, err
	}
	if err := a.unused([]string{"type", "cq", "send_cq", "recv_cq", "send_wr", "recv_wr", "send_sge", "recv_sge", "inline", "sig_all", "as"}); err != nil {
		return Result{}, err
	}
	qp, err := pd.pd.CreateQP(verbs.QPInitAttr{
		Type: typ, SendCQ: send.cq, RecvCQ: recv.cq, SigAll: sigAll == 1,
		Cap: verbs.QPCap{MaxSendWR: uint32(caps[0]), MaxRecvWR: uint32(caps[1]), MaxSendSGE: uint32(caps[2]), MaxRecvSGE: uint32(caps[3]), MaxInlineData: uint32(caps[4])},
	})
	if err != nil {
		return Result{}, failed("qp", err)
	}
	// A random first PSN, as rc_pingpong draws one: a stale packet of an
	// earlier connection is then unlikely to be taken for a new one.
	e := s.add(&entry{kind: rdma.KindQP, qp: qp, obj: qp, parent: pd, sendCQ: send, recvCQ: recv, psn: rand.Uint32() & 0xffffff}, as)
	c := qp.Cap()
	return created(e, fmt.Sprintf("%s QP number %d in %s, completions to %s, state RESET (send_wr %d recv_wr %d)",
		typ, qp.Num(), pd.name, cqNames(send, recv), c.MaxSendWR, c.MaxRecvWR),
		map[string]any{"qpn": qp.Num(), "type": typ.String(), "state": "RESET", "send_cq": send.name, "recv_cq": recv.name}), nil
}

func cqNames(send, recv *entry) string {
	if send == recv {
		return send.name
	}
	return send.name + " (send) and " + recv.name + " (recv)"
}
