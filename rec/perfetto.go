package rec

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// perfettoEvent is one event of the Chrome trace JSON format that
// ui.perfetto.dev and chrome://tracing open ("Trace Event Format"):
// M names a process track, b and e begin and end an async slice
// (overlapping lifetimes: one per id), i is an instant, C a counter.
type perfettoEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	TS   float64        `json:"ts"` // microseconds
	PID  uint32         `json:"pid"`
	TID  uint32         `json:"tid"`
	ID   string         `json:"id,omitempty"`
	S    string         `json:"s,omitempty"` // an instant's scope: p (its process)
	Args map[string]any `json:"args,omitempty"`
}

// perfettoTrace is the file: {"traceEvents": [...]}.
type perfettoTrace struct {
	TraceEvents     []perfettoEvent `json:"traceEvents"`
	DisplayTimeUnit string          `json:"displayTimeUnit"`
}

// hostPID is the host's track: kernel objects, port counters and
// alerts. No process has pid 0.
const hostPID = 0

// Perfetto writes the recording as Chrome trace JSON: a track per
// process (by pid) holding each of its QPs' lifetimes as an async
// slice named "DEV QP N" and each state change as an instant with the
// traced modify's attributes; on the host's track, the ports' counters
// (bytes/s, packets/s, errors/s) and the alerts.
func (r *Reader) Perfetto(ctx context.Context, out io.Writer) error {
	tr, err := r.trace(ctx)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(out)
	return enc.Encode(tr)
}

func (r *Reader) trace(ctx context.Context) (*perfettoTrace, error) {
	info, err := r.Info(ctx)
	if err != nil {
		return nil, err
	}
	lts, err := r.Lifetimes(ctx)
	if err != nil {
		return nil, err
	}
	trs, err := r.Transitions(ctx)
	if err != nil {
		return nil, err
	}
	als, err := r.Alerts(ctx)
	if err != nil {
		return nil, err
	}
	us := func(t time.Time) float64 { return float64(t.UnixNano()) / 1e3 }
	var evs []perfettoEvent
	names := map[uint32]string{hostPID: "host " + info.Host["hostname"] + " (kernel objects, counters, alerts)"}
	for _, l := range lts {
		if l.Kind != "qp" {
			continue
		}
		if _, ok := names[l.PID]; !ok {
			names[l.PID] = fmt.Sprintf("%s (pid %d)", l.Comm, l.PID)
		}
		name, id := fmt.Sprintf("%s QP %d", l.Dev, l.Num), fmt.Sprintf("%s/qp/%d@%d", l.Dev, l.Num, l.Start.UnixNano())
		evs = append(evs,
			perfettoEvent{Name: name, Cat: "qp", Ph: "b", TS: us(l.Start), PID: l.PID, TID: l.PID, ID: id,
				Args: map[string]any{"type": l.Type, "pid": l.PID, "comm": l.Comm}},
			perfettoEvent{Name: name, Cat: "qp", Ph: "e", TS: us(l.End), PID: l.PID, TID: l.PID, ID: id,
				Args: map[string]any{"state": l.State, "vanished": l.Ended}})
	}
	for _, x := range trs {
		if _, ok := names[x.PID]; !ok {
			names[x.PID] = fmt.Sprintf("%s (pid %d)", x.Comm, x.PID)
		}
		args := map[string]any{"state": x.State, "sq_psn": x.SQPSN, "rq_psn": x.RQPSN}
		if x.ByPID != nil {
			args["by_pid"], args["by_comm"], args["mask"] = *x.ByPID, x.ByComm, x.Mask
		}
		if x.Attrs != nil {
			args["attrs"] = x.Attrs
		}
		if x.Ret != nil && *x.Ret != 0 {
			args["ret"], args["errno"] = *x.Ret, x.Errno
		}
		what := "→ " + x.State
		if x.Gone {
			what = "gone"
		}
		evs = append(evs, perfettoEvent{Name: fmt.Sprintf("%s QP %d %s", x.Dev, x.QPN, what), Cat: "state", Ph: "i", S: "p",
			TS: us(x.Time), PID: x.PID, TID: x.PID, Args: args})
	}
	for _, a := range als {
		evs = append(evs, perfettoEvent{Name: fmt.Sprintf("%s %s: %s %s %d", a.What, a.Op, a.Dev, a.Kind, a.Num), Cat: "alert", Ph: "i", S: "p",
			TS: us(a.Time), PID: hostPID, Args: map[string]any{"pid": a.PID, "comm": a.Comm, "state": a.State, "evidence": a.Evidence}})
	}
	cevs, err := r.counterEvents(ctx, us)
	if err != nil {
		return nil, err
	}
	evs = append(evs, cevs...)
	slices.SortStableFunc(evs, func(a, b perfettoEvent) int { return cmp.Compare(a.TS, b.TS) })
	var meta []perfettoEvent
	for _, pid := range slices.Sorted(maps.Keys(names)) {
		meta = append(meta, perfettoEvent{Name: "process_name", Ph: "M", PID: pid, TID: pid, Args: map[string]any{"name": names[pid]}})
	}
	return &perfettoTrace{TraceEvents: append(meta, evs...), DisplayTimeUnit: "ms"}, nil
}

// counterEvents turns the ports' counters into rates between two
// sysfs readings, in sysfsmon's terms (Counter.Unit, Counter.Flow, as
// the dashboard's flows): bytes/s and packets/s each way, summed over
// the counters that count them (counters/port_xmit_data counts 4-byte
// words; rxe has no counters/, only hw_counters/sent_pkts and
// rcvd_pkts), and the error counters' sum per second.
func (r *Reader) counterEvents(ctx context.Context, us func(time.Time) float64) ([]perfettoEvent, error) {
	type port struct {
		dev  string
		port int
	}
	prev := map[port]counterSample{}
	var out []perfettoEvent
	err := r.counters(ctx, func(c counterSample) {
		p := port{c.Dev, c.Port}
		old, ok := prev[p]
		prev[p] = c
		secs := c.Time.Sub(old.Time).Seconds()
		if !ok || secs <= 0 {
			return
		}
		sum := map[string]float64{} // "bytes tx", "packets rx", "errors"
		// By name: floating-point sums depend on their order, and the
		// export is compared byte for byte with a golden file.
		for _, key := range slices.Sorted(maps.Keys(c.Values)) {
			now := c.Values[key]
			was, had := old.Values[key]
			if !had || now < was {
				continue // new, or reset: no rate yet
			}
			group, name, _ := strings.Cut(key, "/")
			ctr := sysfsmon.Counter{Group: group, Name: name}
			unit, scale := ctr.Unit()
			rate := float64(now-was) * float64(scale) / secs
			if flow := ctr.Flow(); flow != "" {
				sum[unit.String()+" "+flow] += rate
			}
			if sysfsmon.IsErrorCounter(name) {
				sum["errors"] += rate
			}
		}
		track := fmt.Sprintf("%s/%d ", c.Dev, c.Port)
		out = append(out,
			perfettoEvent{Name: track + "bytes/s", Ph: "C", TS: us(c.Time), PID: hostPID,
				Args: map[string]any{"tx": sum["bytes tx"], "rx": sum["bytes rx"]}},
			perfettoEvent{Name: track + "packets/s", Ph: "C", TS: us(c.Time), PID: hostPID,
				Args: map[string]any{"tx": sum["packets tx"], "rx": sum["packets rx"]}},
			perfettoEvent{Name: track + "errors/s", Ph: "C", TS: us(c.Time), PID: hostPID, Args: map[string]any{"errors": sum["errors"]}})
	})
	return out, err
}
