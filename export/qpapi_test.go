package export

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// TestQPsAPIModifies: history entries that traced modifies made carry
// the modify (its mask and attributes, and ret and errno when it failed);
// those a snapshot saw carry none.
func TestQPsAPIModifies(t *testing.T) {
	s := recorded(t, "rc-rts")
	q := s.QPs[0]
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	tr.Update(s)
	at := s.Time.Add(time.Second)
	tr.Observe(inspect.Modify{
		Time: at, Dev: q.DevName, QPN: q.LQPN, PID: 812, Comm: "ibv_rc_pingpong",
		From: inspect.QPState(rdma.QPStateRTS), To: inspect.QPState(rdma.QPStateRTS), HasState: true,
		Mask: []string{"IB_QP_STATE", "IB_QP_TIMEOUT"}, AttrsJSON: []byte(`{"qp_state":"RTS","timeout":14}`),
	})
	tr.Observe(inspect.Modify{
		Time: at.Add(time.Second), Dev: q.DevName, QPN: q.LQPN, PID: 812, Comm: "ibv_rc_pingpong",
		From: inspect.QPState(rdma.QPStateRTS), To: inspect.QPState(rdma.QPStateRTR), HasState: true,
		Mask: []string{"IB_QP_STATE"}, AttrsJSON: []byte(`{"qp_state":"RTR"}`),
		Ret: -22, Errno: "EINVAL", Check: "RTS→RTR is not a transition",
	})
	k := inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}
	c := NewCollector(Options{})
	c.observe(inspect.Frame{Snapshot: s, History: map[inspect.Key][]inspect.StateEvent{k: tr.History(k)}})
	rec := httptest.NewRecorder()
	sensitiveAPI(c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/qps", nil))
	var got []struct {
		LQPN    uint32 `json:"lqpn"`
		History []map[string]any
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, rec.Body)
	}
	var mods []any
	for _, g := range got {
		if g.LQPN != q.LQPN {
			continue
		}
		for _, e := range g.History {
			mods = append(mods, e["modify"])
		}
	}
	want := []any{
		nil, // the snapshot's RTS
		map[string]any{"pid": 812.0, "comm": "ibv_rc_pingpong", "mask": []any{"IB_QP_STATE", "IB_QP_TIMEOUT"},
			"attrs": map[string]any{"qp_state": "RTS", "timeout": 14.0}, "ret": 0.0},
		map[string]any{"pid": 812.0, "comm": "ibv_rc_pingpong", "mask": []any{"IB_QP_STATE"},
			"attrs": map[string]any{"qp_state": "RTR"}, "ret": -22.0, "errno": "EINVAL", "check": "RTS→RTR is not a transition"},
	}
	if d := cmp.Diff(want, mods); d != "" {
		t.Errorf("history's modifies (-want +got):\n%s\n%s", d, rec.Body)
	}
}

// sensitiveAPI is /api/v1/qps of c serving every field to everyone
// (--api.sensitive).
func sensitiveAPI(c *Collector) http.Handler {
	return &qpAPI{c: c, auth: APIOptions{Sensitive: true}}
}
