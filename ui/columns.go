package ui

import (
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// resView is one view of `rdma resource show`: its columns name the
// row fields (view.Field keys) inspect builds for `verbscope res`.
type resView struct {
	name  string
	title string
	kind  inspect.Kind
	cols  []Column
}

// resIndex is each object view's column of each field key.
var resIndex = map[inspect.Kind]map[string]int{}

func init() {
	for _, v := range resViews {
		resIndex[v.kind] = colIndex(v.cols)
	}
}

// resViewOf is the view of an object kind.
func resViewOf(k inspect.Kind) *resView {
	for i := range resViews {
		if resViews[i].kind == k {
			return &resViews[i]
		}
	}
	return nil
}

func col(key, title string, prio int, right bool) Column {
	return Column{Key: key, Title: title, Prio: prio, Right: right}
}

var owner = []Column{col("pid", "pid", 2, true), col("tgid", "process", 1, true), {Key: "comm", Title: "comm", Prio: 1, Max: 24}}

func withOwner(cs ...Column) []Column { return append(cs, owner...) }

var resViews = []resView{
	{"qp", "QPs", rdma.KindQP, withOwner(col("link", "link", 0, false), col("lqpn", "lqpn", 0, true),
		col("rqpn", "rqpn", 3, true), col("type", "type", 0, false), col("state", "state", 0, false),
		col("rq-psn", "rq-psn", 4, true), col("sq-psn", "sq-psn", 4, true), col("path-mig-state", "mig", 6, false),
		col("pdn", "pdn", 5, true))},
	{"cq", "CQs", rdma.KindCQ, withOwner(col("ifname", "dev", 0, false), col("cqn", "cqn", 0, true),
		col("cqe", "cqe", 0, true), col("users", "users", 3, true), col("poll-ctx", "poll-ctx", 4, false),
		col("adaptive-moderation", "dim", 6, false), col("ctxn", "ctxn", 5, true))},
	{"mr", "MRs", rdma.KindMR, withOwner(col("ifname", "dev", 0, false), col("mrn", "mrn", 0, true),
		col("mrlen", "mrlen", 0, true), col("lkey", "lkey", 3, false), col("rkey", "rkey", 3, false),
		col("iova", "iova", 5, false), col("pdn", "pdn", 4, true))},
	{"pd", "PDs", rdma.KindPD, withOwner(col("ifname", "dev", 0, false), col("pdn", "pdn", 0, true),
		col("users", "users", 3, true), col("local_dma_lkey", "local_dma_lkey", 5, false),
		col("unsafe_global_rkey", "global_rkey", 6, false), col("ctxn", "ctxn", 4, true))},
	{"ctx", "contexts", rdma.KindCtx, withOwner(col("ifname", "dev", 0, false), col("ctxn", "ctxn", 0, true))},
	{"srq", "SRQs", rdma.KindSRQ, withOwner(col("ifname", "dev", 0, false), col("srqn", "srqn", 0, true),
		col("type", "type", 0, false), col("lqpn", "lqpn", 3, false), col("pdn", "pdn", 4, true), col("cqn", "cqn", 4, true))},
	{"cm_id", "CM IDs", rdma.KindCMID, withOwner(col("link", "link", 0, false), col("cm-idn", "cm-idn", 0, true),
		col("lqpn", "lqpn", 2, true), col("qp-type", "qp-type", 3, false), col("state", "state", 0, false),
		col("ps", "ps", 4, false), col("src-addr", "src-addr", 3, false), col("dst-addr", "dst-addr", 3, false))},
}

var eventCols = []Column{col("time", "time", 0, false), col("what", "what", 0, false), col("object", "object", 0, false),
	col("process", "process", 1, false), {Key: "detail", Title: "detail", Prio: 2}}
