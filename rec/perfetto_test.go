package rec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// checkTrace checks a Chrome trace's structure as ui.perfetto.dev
// needs it: every async begin has one end (same cat, name, id and
// process) after it, no id begins twice, timestamps never go back on a
// track, counters carry numbers, every process is named, and the args
// are those documented (docs/record.md).
func checkTrace(b []byte) (*perfettoTrace, error) {
	var tr perfettoTrace
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tr); err != nil {
		return nil, fmt.Errorf("not trace JSON: %w", err)
	}
	type track struct {
		pid, tid uint32
		id       string
	}
	last := map[track]float64{}
	open := map[string]perfettoEvent{}
	done := map[string]bool{}
	named := map[uint32]bool{}
	for i, e := range tr.TraceEvents {
		if e.Ph == "M" {
			if e.Name != "process_name" || e.Args["name"] == "" {
				return nil, fmt.Errorf("event %d: metadata %q without a name", i, e.Name)
			}
			named[e.PID] = true
			continue
		}
		if !named[e.PID] {
			return nil, fmt.Errorf("event %d (%s): process %d has no name", i, e.Name, e.PID)
		}
		k := track{e.PID, e.TID, ""}
		if e.Ph == "b" || e.Ph == "e" {
			k.id = e.ID
		}
		if e.TS < last[k] {
			return nil, fmt.Errorf("event %d (%s): ts %.0f before %.0f on its track", i, e.Name, e.TS, last[k])
		}
		last[k] = e.TS
		switch e.Ph {
		case "b":
			if e.ID == "" || done[e.ID] {
				return nil, fmt.Errorf("event %d (%s): async begin with id %q empty or used before", i, e.Name, e.ID)
			}
			if _, ok := open[e.ID]; ok {
				return nil, fmt.Errorf("event %d (%s): id %q begun twice", i, e.Name, e.ID)
			}
			for _, a := range []string{"type", "pid", "comm"} {
				if _, ok := e.Args[a]; !ok {
					return nil, fmt.Errorf("event %d (%s): begin lacks arg %q", i, e.Name, a)
				}
			}
			open[e.ID] = e
		case "e":
			b, ok := open[e.ID]
			if !ok || b.Cat != e.Cat || b.Name != e.Name || b.PID != e.PID {
				return nil, fmt.Errorf("event %d (%s): end of id %q matches no begin", i, e.Name, e.ID)
			}
			delete(open, e.ID)
			done[e.ID] = true
		case "i":
			if e.S != "p" {
				return nil, fmt.Errorf("event %d (%s): instant scope %q, want p", i, e.Name, e.S)
			}
			if _, ok := e.Args["state"]; !ok {
				return nil, fmt.Errorf("event %d (%s): instant without a state", i, e.Name)
			}
		case "C":
			if len(e.Args) == 0 {
				return nil, fmt.Errorf("event %d (%s): counter without values", i, e.Name)
			}
			for a, v := range e.Args {
				if _, ok := v.(float64); !ok {
					return nil, fmt.Errorf("event %d (%s): counter %s is %T, not a number", i, e.Name, a, v)
				}
			}
		default:
			return nil, fmt.Errorf("event %d (%s): phase %q", i, e.Name, e.Ph)
		}
	}
	for id := range open {
		return nil, fmt.Errorf("async begin %q has no end", id)
	}
	return &tr, nil
}

// find returns the events whose phase is ph and name contains s.
func find(tr *perfettoTrace, ph, s string) []perfettoEvent {
	var out []perfettoEvent
	for _, e := range tr.TraceEvents {
		if e.Ph == ph && strings.Contains(e.Name, s) {
			out = append(out, e)
		}
	}
	return out
}

func TestPerfetto(t *testing.T) {
	r := openT(t, record(t, WriterOptions{KeyEvery: 2}))
	var b bytes.Buffer
	if err := r.Perfetto(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	tr, err := checkTrace(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	// The pingpong QP lives from reading 2 to 5, on its process's track.
	if bs := find(tr, "b", "rxe0 QP 17"); len(bs) != 1 || bs[0].PID != 100 || bs[0].TS != us(t0, 1) {
		t.Errorf("QP 17 begins: %+v", bs)
	}
	if es := find(tr, "e", "rxe0 QP 17"); len(es) != 1 || es[0].TS != us(t0, 4) || es[0].Args["vanished"] != true {
		t.Errorf("QP 17 ends: %+v", es)
	}
	// The idle QP lives to the end without vanishing.
	if es := find(tr, "e", "rxe0 QP 40"); len(es) != 1 || es[0].Args["vanished"] != false {
		t.Errorf("QP 40 ends: %+v", es)
	}
	errs := find(tr, "i", "rxe0 QP 30 → ERR")
	if len(errs) != 1 {
		t.Fatalf("ERR instants: %+v", errs)
	}
	if e := errs[0]; e.PID != 300 || e.Args["by_pid"] != float64(400) || fmt.Sprint(e.Args["attrs"]) != "map[qp_state:ERR]" {
		t.Errorf("ERR instant: %+v", e)
	}
	if as := find(tr, "i", "failed begin: rxe0 qp 30"); len(as) != 1 || as[0].PID != hostPID {
		t.Errorf("the ERR alert: %+v", as)
	}
	// xmit grows by 1000*(2i+1) a second: 4 bytes a word.
	cs := find(tr, "C", "rxe0/1 bytes/s")
	if len(cs) != 4 || cs[0].Args["tx"] != float64(4000) || cs[3].Args["tx"] != float64(28000) {
		t.Errorf("bytes/s counters: %+v", cs)
	}
}

// us is t0 plus secs seconds, in the trace's microseconds.
func us(t0 time.Time, secs int) float64 {
	return float64(t0.Add(time.Duration(secs)*time.Second).UnixNano()) / 1e3
}

// The checker finds what it is for.
func TestCheckTraceCatches(t *testing.T) {
	meta := `{"name":"process_name","ph":"M","ts":0,"pid":1,"tid":1,"args":{"name":"p"}}`
	b := `{"name":"q","cat":"qp","ph":"b","ts":10,"pid":1,"tid":1,"id":"a","args":{"type":"RC","pid":1,"comm":"p"}}`
	e := `{"name":"q","cat":"qp","ph":"e","ts":20,"pid":1,"tid":1,"id":"a"}`
	for _, tc := range []struct {
		name, events, says string
	}{
		{"no end", meta + "," + b, "has no end"},
		{"end alone", meta + "," + e, "matches no begin"},
		{"back in time", meta + "," + b + "," + strings.Replace(e, `"ts":20`, `"ts":5`, 1), "before"},
		{"unnamed", b + "," + e, "has no name"},
		{"two begins", meta + "," + b + "," + b, "begun twice"},
	} {
		_, err := checkTrace([]byte(`{"traceEvents":[` + tc.events + `],"displayTimeUnit":"ms"}`))
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.says)
		}
	}
}
