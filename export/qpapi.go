package export

import (
	"net/http"
	"strconv"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/view"
)

// serveQPs answers /api/v1/qps: a JSON array with one object per live QP,
// the keys and values of `verbscope res qp -j` (rdma -j resource show qp)
// plus "history", the states the Tracker saw, oldest first; an entry that
// a traced modify made (verbscope trace) carries it as "modify", with the
// attributes the mask set and, for a failed one, ret and errno. 503 until the
// first netlink reading, or when the last one failed.
func (c *Collector) serveQPs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "export: /api/v1/qps is read-only: use GET", http.StatusMethodNotAllowed)
		return
	}
	c.mu.Lock()
	s, hist, err := c.frame.Snapshot, c.frame.History, c.frame.Err
	var b []byte
	if s != nil {
		b = appendQPs(b, s, hist)
	}
	c.mu.Unlock()
	if s == nil {
		msg := "export: no RDMA netlink reading yet"
		if err != nil {
			msg = "export: the last RDMA netlink reading failed: " + err.Error()
		}
		http.Error(w, msg, http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func appendQPs(b []byte, s *inspect.Snapshot, hist map[inspect.Key][]inspect.StateEvent) []byte {
	b = append(b, '[')
	for i := range s.QPs {
		q := &s.QPs[i]
		if i > 0 {
			b = append(b, ',')
		}
		obj := q.Row(false).AppendJSON(nil)
		b = append(b, obj[:len(obj)-1]...) // reopen the object for "history"
		b = append(b, `,"history":[`...)
		for j, e := range hist[inspect.Key{Kind: rdma.KindQP, Dev: q.DevName, ID: q.LQPN}] {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendEvent(b, e)
		}
		b = append(b, "]}"...)
	}
	return append(b, "]\n"...)
}

func appendEvent(b []byte, e inspect.StateEvent) []byte {
	b = append(b, `{"time":`...)
	b = view.AppendJSONString(b, e.Time.UTC().Format(time.RFC3339Nano))
	b = append(b, `,"state":`...)
	b = view.AppendJSONString(b, e.State.String())
	b = append(b, `,"sq-psn":`...)
	b = strconv.AppendUint(b, uint64(e.SQPSN), 10)
	b = append(b, `,"rq-psn":`...)
	b = strconv.AppendUint(b, uint64(e.RQPSN), 10)
	b = append(b, `,"gone":`...)
	b = strconv.AppendBool(b, e.Gone)
	if e.Modify != nil {
		b = e.Modify.AppendJSON(append(b, `,"modify":`...))
	}
	return append(b, '}')
}
