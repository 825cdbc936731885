package shell

import (
	"context"
	"fmt"

	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

func init() {
	register(&command{
		name: "ah", aliases: []string{"create_ah"}, usage: "ah [PD] dgid=GID [sgid_index=N] [hop_limit=N] [as=NAME]",
		summary: "create an address handle (ibv_create_ah): where a UD send goes",
		help: `UD QPs are not connected: each send names an address handle and the
peer's QP number and Q_Key. On RoCE the handle must be global (a GRH with
the peer's GID); the kernel resolves the peer's MAC address here.

examples:
  open; pd
  ah dgid=10.0.0.1
  cq; mr; qp type=ud as=ud1; qp type=ud as=ud2; next ud1; next ud1; next ud1; next ud2; next ud2
  post send ud1 mr1[0:64] ah=ah1 remote_qpn=ud2 qkey=0x11111111`,
		pos:  []argKind{objArg(rdma.KindPD)},
		keys: func(*Shell, []string) []keySpec { return append(attrKeys(ahFields), asSpec) },
		run:  runAH,
	})
}

// ahFields are the address-vector attributes an AH takes.
var ahFields = []string{"dgid", "sgid_index", "hop_limit", "traffic_class", "flow_label", "sl", "dlid", "is_global", "ah_port"}

func runAH(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	pd, err := s.pick(a, 0, rdma.KindPD)
	if err != nil {
		return Result{}, err
	}
	for _, k := range a.keys {
		if k != "as" && !contains(ahFields, k) {
			return Result{}, usageErr(a.cmd, "an address handle has no %s%s", k, suggest(k, ahFields))
		}
	}
	var attr verbs.QPAttr
	if _, err := s.applyAttrs(a, &attr, "as"); err != nil {
		return Result{}, err
	}
	as, err := s.newName(a)
	if err != nil {
		return Result{}, err
	}
	if _, ok := a.str("dgid"); !ok {
		return Result{}, usageErr(a.cmd, "an address handle needs dgid= (the peer's GID or IPv4 address)")
	}
	s.fillAV(pd.parent, &attr, a.given())
	ah, err := pd.pd.CreateAH(attr.AH)
	if err != nil {
		return Result{}, failed("ah", err)
	}
	e := s.add(&entry{kind: rdma.KindAH, ah: ah, obj: ah, parent: pd}, as)
	return created(e, fmt.Sprintf("address handle to %s from GID index %d", attr.AH.GRH.DGID, attr.AH.GRH.SGIDIndex), nil), nil
}
