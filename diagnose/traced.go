package diagnose

import (
	"strconv"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// tracedFacts reads a QP's history for what its traced modifies set
// (trace/attrs.go names them by struct ib_qp_attr's members; ah_attr's
// as "ah_attr.dgid"), the latest winning, and the modify that moved it
// to ERR when that is its last state.
func tracedFacts(h []inspect.StateEvent) traced {
	t := traced{Timeout: -1, RetryCnt: -1, RNRRetry: -1}
	for i := range h {
		m := h[i].Modify
		if m == nil || m.Ret != 0 {
			continue
		}
		for _, a := range m.Attrs {
			switch a.Name {
			case "ah_attr.dgid":
				t.DGID = a.Value
			case "dest_qp_num":
				if n, err := strconv.ParseUint(a.Value, 0, 32); err == nil {
					t.DestQPN, t.HasDest = uint32(n), true
				}
			case "timeout":
				t.Timeout = atoiOr(a.Value, t.Timeout)
			case "retry_cnt":
				t.RetryCnt = atoiOr(a.Value, t.RetryCnt)
			case "rnr_retry":
				t.RNRRetry = atoiOr(a.Value, t.RNRRetry)
			}
		}
	}
	for i := len(h) - 1; i >= 0; i-- {
		e := &h[i]
		if e.Gone {
			continue
		}
		if e.State == rdma.QPStateErr && e.Modify != nil && e.Modify.Ret == 0 && e.Modify.HasState && e.Modify.To == rdma.QPStateErr {
			t.ToErr = e.Modify
		}
		break
	}
	return t
}

func atoiOr(s string, def int) int {
	if n, err := strconv.ParseInt(s, 0, 32); err == nil {
		return int(n)
	}
	return def
}
