package rdma

// Kind is the kind of a verbs object, named as rdma-resource(8) names
// the object types of `rdma resource show` (qp, cq, mr, pd, ctx, srq,
// cm_id; the kernel's enum rdma_restrack_type in
// include/rdma/restrack.h) and, for objects only their own process sees,
// as the verbs shell names them (ch, ah).
type Kind string

// Object kinds.
const (
	KindCtx     Kind = "ctx"   // a device context, ibv_open_device(3) (RDMA_RESTRACK_CTX)
	KindPD      Kind = "pd"    // a protection domain, ibv_alloc_pd(3)
	KindMR      Kind = "mr"    // a memory region, ibv_reg_mr(3)
	KindCQ      Kind = "cq"    // a completion queue, ibv_create_cq(3)
	KindQP      Kind = "qp"    // a queue pair, ibv_create_qp(3)
	KindSRQ     Kind = "srq"   // a shared receive queue, ibv_create_srq(3)
	KindCMID    Kind = "cm_id" // an RDMA CM identifier, rdma_create_id(3)
	KindChannel Kind = "ch"    // a completion channel, ibv_create_comp_channel(3); not tracked by the kernel
	KindAH      Kind = "ah"    // an address handle, ibv_create_ah(3); not in nldev's dumps
)

// ResourceKinds are the kinds `rdma resource show` dumps
// (rdma-resource(8)), in the order verbscope lists them.
func ResourceKinds() []Kind {
	return []Kind{KindQP, KindCQ, KindMR, KindPD, KindCtx, KindSRQ, KindCMID}
}

var kindWords = map[Kind][2]string{
	KindCtx: {"device context", "context"}, KindPD: {"protection domain", "PD"},
	KindMR: {"memory region", "MR"}, KindCQ: {"completion queue", "CQ"},
	KindQP: {"queue pair", "QP"}, KindSRQ: {"shared receive queue", "SRQ"},
	KindCMID: {"RDMA CM identifier", "cm_id"}, KindChannel: {"completion channel", "channel"},
	KindAH: {"address handle", "AH"},
}

// Word is how a sentence names the kind: "queue pair", "device context";
// an unknown kind is its own name.
func (k Kind) Word() string {
	if w, ok := kindWords[k]; ok {
		return w[0]
	}
	return string(k)
}

// Short is the kind's short name in counts and lists: "QP", "MR",
// "context"; an unknown kind is its own name.
func (k Kind) Short() string {
	if w, ok := kindWords[k]; ok {
		return w[1]
	}
	return string(k)
}

// ParseKind reads a kind's name ("qp", "cm_id", "ch").
func ParseKind(s string) (Kind, bool) {
	k := Kind(s)
	_, ok := kindWords[k]
	return k, ok
}
