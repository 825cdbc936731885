package rec

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/verbscope/verbscope/sysfsmon"
)

// TraceEvent is one event of the Chrome trace JSON format that
// ui.perfetto.dev and chrome://tracing open ("Trace Event Format"):
// M names a process track, b and e begin and end an async slice
// (overlapping lifetimes: one per id), i is an instant, C a counter.
type TraceEvent struct {
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

// Trace is the file: {"traceEvents": [...]}.
type Trace struct {
	TraceEvents     []TraceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
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

func (r *Reader) trace(ctx context.Context) (*Trace, error) {
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
	var evs []TraceEvent
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
			TraceEvent{Name: name, Cat: "qp", Ph: "b", TS: us(l.Start), PID: l.PID, TID: l.PID, ID: id,
				Args: map[string]any{"type": l.Type, "pid": l.PID, "comm": l.Comm}},
			TraceEvent{Name: name, Cat: "qp", Ph: "e", TS: us(l.End), PID: l.PID, TID: l.PID, ID: id,
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
		evs = append(evs, TraceEvent{Name: fmt.Sprintf("%s QP %d %s", x.Dev, x.QPN, what), Cat: "state", Ph: "i", S: "p",
			TS: us(x.Time), PID: x.PID, TID: x.PID, Args: args})
	}
	for _, a := range als {
		evs = append(evs, TraceEvent{Name: fmt.Sprintf("%s %s: %s %s %d", a.What, a.Op, a.Dev, a.Kind, a.Num), Cat: "alert", Ph: "i", S: "p",
			TS: us(a.Time), PID: hostPID, Args: map[string]any{"pid": a.PID, "comm": a.Comm, "state": a.State, "evidence": a.Evidence}})
	}
	cevs, err := r.counterEvents(ctx, us)
	if err != nil {
		return nil, err
	}
	evs = append(evs, cevs...)
	slices.SortStableFunc(evs, func(a, b TraceEvent) int { return cmp.Compare(a.TS, b.TS) })
	var meta []TraceEvent
	for _, pid := range slices.Sorted(maps.Keys(names)) {
		meta = append(meta, TraceEvent{Name: "process_name", Ph: "M", PID: pid, TID: pid, Args: map[string]any{"name": names[pid]}})
	}
	return &Trace{TraceEvents: append(meta, evs...), DisplayTimeUnit: "ms"}, nil
}

// counterEvents turns the ports' counters into rates between two
// sysfs readings: bytes/s and packets/s each way (port_xmit_data and
// port_rcv_data count 4-byte words, sysfs-class-infiniband) and the
// error counters' sum per second.
func (r *Reader) counterEvents(ctx context.Context, us func(time.Time) float64) ([]TraceEvent, error) {
	type port struct {
		dev  string
		port int
	}
	prev := map[port]CounterSample{}
	var out []TraceEvent
	err := r.Counters(ctx, func(c CounterSample) {
		p := port{c.Dev, c.Port}
		old, ok := prev[p]
		prev[p] = c
		secs := c.Time.Sub(old.Time).Seconds()
		if !ok || secs <= 0 {
			return
		}
		rate := func(name string, scale float64) float64 {
			now, had := c.Values[name]
			was := old.Values[name]
			if !had || now < was {
				return 0
			}
			return float64(now-was) * scale / secs
		}
		var errs float64
		for name := range c.Values {
			if sysfsmon.IsErrorCounter(name) {
				errs += rate(name, 1)
			}
		}
		track := fmt.Sprintf("%s/%d ", c.Dev, c.Port)
		out = append(out,
			TraceEvent{Name: track + "bytes/s", Ph: "C", TS: us(c.Time), PID: hostPID,
				Args: map[string]any{"tx": rate("port_xmit_data", 4), "rx": rate("port_rcv_data", 4)}},
			TraceEvent{Name: track + "packets/s", Ph: "C", TS: us(c.Time), PID: hostPID,
				Args: map[string]any{"tx": rate("port_xmit_packets", 1), "rx": rate("port_rcv_packets", 1)}},
			TraceEvent{Name: track + "errors/s", Ph: "C", TS: us(c.Time), PID: hostPID, Args: map[string]any{"errors": errs}})
	})
	return out, err
}
