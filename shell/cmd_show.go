package shell

import (
	"context"
	"fmt"
	"strings"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "show", usage: "show NAME",
		summary: "details of an object: a context's ports and GIDs, a QP's state history, what uses a PD or CQ",
		help: `examples:
  open; pd; cq; qp; next qp1
  show ctx1      # which GID index to use for RoCE v2: the one with your IPv4 address
  show qp1       # every transition with its time and mask`,
		pos: []argKind{objArg(rdma.KindCtx, rdma.KindPD, rdma.KindMR, rdma.KindCQ, rdma.KindChannel, rdma.KindQP)},
		run: runShow,
	})
}

func runShow(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(1, 1); err != nil {
		return Result{}, err
	}
	e, err := s.get(a.pos[0])
	if err != nil {
		return Result{}, err
	}
	var b strings.Builder
	data := map[string]any{"name": e.name, "kind": string(e.kind)}
	fmt.Fprintf(&b, "%s: %s\n", e.name, s.summary(e))
	switch e.kind {
	case rdma.KindCtx:
		if err := showContext(&b, e.ctx, data); err != nil {
			return Result{}, err
		}
	case rdma.KindQP:
		fmt.Fprintf(&b, "in %s, completions to %s\n", e.parent.name, cqNames(e.sendCQ, e.recvCQ))
		var hist []map[string]any
		if len(e.history) == 0 {
			b.WriteString("no transitions yet (a new QP is in RESET)\n")
		}
		for _, h := range e.history {
			fmt.Fprintf(&b, "  %s  %s → %s  with %s\n", h.At.Format("15:04:05.000"), h.From, h.To, h.Mask)
			hist = append(hist, map[string]any{"at": h.At, "from": h.From.String(), "to": h.To.String(), "mask": h.Mask.Names()})
		}
		data["history"] = hist
	default:
		var users []string
		for _, o := range s.objs.all() {
			if o.uses(e) {
				users = append(users, o.name)
			}
		}
		if len(users) > 0 {
			fmt.Fprintf(&b, "used by: %s\n", strings.Join(users, ", "))
		}
		data["used_by"] = users
	}
	return Result{Text: strings.TrimRight(b.String(), "\n"), Data: data}, nil
}

// showContext lists a device's ports and populated GIDs: what a learner
// needs to pick port, path_mtu and sgid_index.
func showContext(b *strings.Builder, c *verbs.Context, data map[string]any) error {
	attr, err := c.QueryDevice()
	if err != nil {
		return failed("show", err)
	}
	gids, err := c.GIDTable()
	if err != nil {
		return failed("show", err)
	}
	var ports []map[string]any
	for p := 1; p <= attr.PhysPortCnt; p++ {
		pa, err := c.QueryPort(p)
		if err != nil {
			return failed("show", err)
		}
		fmt.Fprintf(b, "port %d: %s, link layer %s, active MTU %s (max %s)\n", p, pa.State, pa.LinkLayer, pa.ActiveMTU, pa.MaxMTU)
		var gl []map[string]any
		for _, g := range gids {
			if g.Port == p {
				fmt.Fprintf(b, "  GID[%d] %-40s %s\n", g.Index, g.GID, g.Type)
				gl = append(gl, map[string]any{"index": g.Index, "gid": g.GID.String(), "type": g.Type.String()})
			}
		}
		ports = append(ports, map[string]any{"port": p, "state": pa.State.String(), "link_layer": pa.LinkLayer.String(),
			"active_mtu": pa.ActiveMTU.Bytes(), "gids": gl})
	}
	data["ports"] = ports
	// Each completion vector is one interrupt on a hardware device; a CQ
	// picks its own (cq vector=N).
	vectors, err := c.NumCompVectors()
	if err != nil {
		return failed("show", err)
	}
	fmt.Fprintf(b, "completion vectors (num_comp_vectors): %d\n", vectors)
	data["num_comp_vectors"] = vectors
	return nil
}
