package export

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// The verdict of a QP that needs a look rides in its object (whole to a
// client that authenticated, cause and certainty to others), and gone=1
// adds the QPs destroyed lately.
func TestQPsAPIVerdictAndGone(t *testing.T) {
	rts := recorded(t, "rc-rts")
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	c := NewCollector(Options{})
	var last inspect.Snapshot
	for _, s := range []*inspect.Snapshot{rts, withState(rts, 18, 6)} {
		c.observe(inspect.Frame{Snapshot: s, Update: tr.Update(s), History: tr.Histories()})
		last = *s
	}
	// Then QP 19 is destroyed.
	gone := last
	gone.Time = last.Time.Add(1e9)
	gone.QPs = nil
	for _, q := range last.QPs {
		if q.LQPN != 19 {
			gone.QPs = append(gone.QPs, q)
		}
	}
	gone.MarkChanged(rdma.KindQP)
	c.observe(inspect.Frame{Snapshot: &gone, Update: tr.Update(&gone), History: tr.Histories()})

	type obj struct {
		LQPN    uint32         `json:"lqpn"`
		State   string         `json:"state"`
		Gone    bool           `json:"gone"`
		Verdict map[string]any `json:"verdict"`
	}
	get := func(h http.Handler, path string) []obj {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var got []obj
		if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
			t.Fatalf("%s: not JSON (%d): %v\n%s", path, rec.Code, err, rec.Body)
		}
		return got
	}
	got := get(sensitiveAPI(c), "/api/v1/qps?gone=1")
	var summary []string
	for _, o := range got {
		s := o.State
		if o.Gone {
			s += " gone"
		}
		if o.Verdict != nil {
			s += " " + o.Verdict["cause"].(string) + " " + o.Verdict["certainty"].(string)
			if len(o.Verdict["evidence"].([]any)) == 0 || len(o.Verdict["fix"].([]any)) == 0 {
				t.Errorf("qp %d: a verdict without evidence or fix: %v", o.LQPN, o.Verdict)
			}
		}
		summary = append(summary, s)
	}
	// QPs 1 and 18 live, then 19 gone: the gone come after the live.
	want := []string{"RTS", "ERR flushed certain", "RTS gone"}
	if d := cmp.Diff(want, summary); d != "" {
		t.Errorf("QPs (-want +got):\n%s", d)
	}
	public := get(&qpAPI{c: c}, "/api/v1/qps")
	for _, o := range public {
		if o.Verdict != nil && !cmp.Equal(o.Verdict, map[string]any{"cause": "flushed", "certainty": "certain"}) {
			t.Errorf("a client without authentication got the verdict %v", o.Verdict)
		}
	}
}

// What a peer's diagnosis reads of this exporter (diagnose.HTTPPeers):
// the QP at the other end with its state, PSNs and owner, and a QP
// destroyed lately as gone.
func TestQPsAPIForPeers(t *testing.T) {
	rts := recorded(t, "rc-rts")
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	c := NewCollector(Options{})
	c.observe(inspect.Frame{Snapshot: rts, Update: tr.Update(rts), History: tr.Histories()})
	gone := *rts
	gone.Time = rts.Time.Add(time.Second)
	gone.QPs = nil
	for _, q := range rts.QPs {
		if q.LQPN != 19 {
			gone.QPs = append(gone.QPs, q)
		}
	}
	gone.MarkChanged(rdma.KindQP)
	c.observe(inspect.Frame{Snapshot: &gone, Update: tr.Update(&gone), History: tr.Histories()})
	srv := httptest.NewServer(sensitiveAPI(c))
	defer srv.Close()
	peers, err := diagnose.NewHTTPPeers(diagnose.PeerConfig{URLs: []string{srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	var q18 inspect.QP
	for _, q := range rts.QPs {
		if q.LQPN == 18 {
			q18 = q
		}
	}
	// A QP of another host whose peer is 18 (18's remote number is its).
	asker := q18
	asker.LQPN, asker.RQPN = q18.RQPN, 18
	a := peers.Find(context.Background(), &asker, "")
	host := strings.TrimPrefix(srv.URL, "http://")
	want := &diagnose.PeerQP{Host: host, Dev: q18.DevName, LQPN: 18, RQPN: q18.RQPN, State: q18.State.IPRoute2(),
		SQPSN: q18.SQPSN, RQPSN: q18.RQPSN, PID: q18.PID, Comm: q18.Comm}
	if d := cmp.Diff(want, a.QP); d != "" || len(a.Failed) != 0 {
		t.Errorf("the peer (-want +got):\n%s\nfailed: %v", d, a.Failed)
	}
	asker.RQPN = 19
	if a := peers.Find(context.Background(), &asker, ""); a.QP == nil || !a.QP.Gone || a.QP.LQPN != 19 || a.QP.GoneAt.IsZero() {
		t.Errorf("the destroyed peer: got %+v", a.QP)
	}
}
