package rec

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// t0 is the scenario's first reading.
var t0 = time.Date(2026, 12, 1, 2, 47, 0, 0, time.UTC)

func obj(pid uint32, comm string) inspect.Object {
	o := inspect.Object{DevIndex: 1, DevName: "rxe0", PID: pid, TGID: pid, Comm: comm, Owner: inspect.OwnerLive}
	o.Attrs.Add(inspect.AttrResPID)
	return o
}

func qp(n uint32, pid uint32, comm string, st rdma.QPState, sq, rq uint32) inspect.QP {
	q := inspect.QP{Object: obj(pid, comm), Port: 1, LQPN: n, Type: rdma.QPTypeRC, State: st, SQPSN: sq, RQPSN: rq, RQPN: n ^ 1}
	if n == 17 {
		// The pingpong's QP is created by a thread of its process,
		// as a Go program's are: the recording names the process.
		q.PID = pid + 1
	}
	return q
}

func mr(n uint32, pid uint32, comm string) inspect.MR {
	return inspect.MR{Object: obj(pid, comm), MRN: n, Len: 4096}
}

// scenario is a short session, reading by reading: a pingpong pair
// (pid 100) comes up, sends and goes; a victim's QP (pid 300) is moved
// to ERR by a shell (pid 400, traced); a leaky process (pid 200) only
// registers MRs; an idle process (pid 500) holds a QP throughout.
func scenario() []*inspect.Snapshot {
	idle := qp(40, 500, "idle", rdma.QPStateRTS, 0, 0)
	var out []*inspect.Snapshot
	add := func(qps []inspect.QP, mrs []inspect.MR) {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(len(out)) * time.Second), QPs: append([]inspect.QP{idle}, qps...), MRs: mrs}
		out = append(out, s)
	}
	add([]inspect.QP{qp(30, 300, "victim", rdma.QPStateRTS, 5, 5)}, []inspect.MR{mr(1, 200, "leaky")})
	add([]inspect.QP{qp(17, 100, "pingpong", rdma.QPStateInit, 0, 0), qp(30, 300, "victim", rdma.QPStateRTS, 5, 5)},
		[]inspect.MR{mr(1, 200, "leaky"), mr(2, 200, "leaky")})
	add([]inspect.QP{qp(17, 100, "pingpong", rdma.QPStateRTS, 10, 10), qp(30, 300, "victim", rdma.QPStateErr, 5, 5)},
		[]inspect.MR{mr(1, 200, "leaky"), mr(2, 200, "leaky"), mr(3, 200, "leaky")})
	add([]inspect.QP{qp(17, 100, "pingpong", rdma.QPStateRTS, 20, 20), qp(30, 300, "victim", rdma.QPStateErr, 5, 5)},
		[]inspect.MR{mr(1, 200, "leaky"), mr(2, 200, "leaky"), mr(3, 200, "leaky")})
	add([]inspect.QP{qp(30, 300, "victim", rdma.QPStateErr, 5, 5)},
		[]inspect.MR{mr(1, 200, "leaky"), mr(2, 200, "leaky"), mr(3, 200, "leaky"), mr(4, 200, "leaky")})
	return out
}

// errModify is the shell's traced move of the victim's QP to ERR,
// between readings 2 and 3 (0-based 1 and 2).
var errModify = inspect.Modify{Time: t0.Add(1500 * time.Millisecond), Dev: "rxe0", QPN: 30, PID: 400, Comm: "verbscope",
	From: rdma.QPStateRTS, To: rdma.QPStateErr, HasState: true, Mask: []string{"IB_QP_STATE"},
	Attrs: []inspect.ModifyAttr{{Name: "qp_state", Value: "ERR"}}, AttrsJSON: []byte(`{"qp_state":"ERR"}`)}

// frames runs the scenario through a Tracker, as inspect.Watch does.
func frames() []inspect.Frame {
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	var out []inspect.Frame
	for i, s := range scenario() {
		if i == 2 {
			tr.Observe(errModify)
		}
		out = append(out, trackedFrame(tr, uint64(i+1), s))
	}
	return out
}

// sysUpdate is a sysfs reading at time t with the given counters.
func sysUpdate(seq int, t time.Time, xmit, rcv uint64) sysfsmon.Update {
	return sysfsmon.Update{Seq: seq, Time: t,
		Devices: []sysfsmon.Device{{Name: "rxe0", NodeTypeName: "CA", Ports: []sysfsmon.Port{{Device: "rxe0", Port: 1, StateName: "ACTIVE"}}}},
		Counters: &sysfsmon.CounterSnapshot{Time: t, Counters: []sysfsmon.Counter{
			{Device: "rxe0", Port: 1, Group: "counters", Name: "port_xmit_data", Value: xmit},
			{Device: "rxe0", Port: 1, Group: "counters", Name: "port_rcv_data", Value: rcv},
			{Device: "rxe0", Port: 1, Group: "counters", Name: "port_xmit_packets", Value: xmit / 256},
			{Device: "rxe0", Port: 1, Group: "counters", Name: "port_rcv_packets", Value: rcv / 256},
			{Device: "rxe0", Port: 1, Group: "hw_counters", Name: "rcvd_seq_err", Value: 0},
		}}}
}

// record writes the scenario to a new file and returns its path.
func record(t testing.TB, o WriterOptions) string {
	t.Helper()
	return recordFrames(t, o, frames())
}

// recordFrames writes fs, the scenario's frames changed as a test
// needs, with the scenario's shell session and sysfs readings.
func recordFrames(t testing.TB, o WriterOptions, fs []inspect.Frame) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.vsrec")
	ctx := context.Background()
	if o.Sessions == "" {
		o.Sessions = t.TempDir()
	}
	w, err := Create(ctx, path, Host{Hostname: "lab", Kernel: "6.12.0", RDMACore: "56.1", Devices: []string{"rxe0"}, Interval: time.Second}, o)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		appendFile(t, filepath.Join(o.Sessions, "400-1.jsonl"), shellSession[i])
		if err := w.Frame(ctx, f); err != nil {
			t.Fatal(err)
		}
		xmit := uint64(1000 * i * i)
		if err := w.writeSys(ctx, sysUpdate(i, f.Snapshot.Time.Add(100*time.Millisecond), xmit, xmit/2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellSession is the shell's (pid 400) transcript as it grows before
// each reading: it opens the device, then moves the victim's QP to ERR
// (traced at 1.5 s); a damaged line between is skipped.
var shellSession = []string{
	0: "",
	1: `{"t":"2026-12-01T02:47:00.2Z","pid":400,"face":"script","kind":"in","text":"open"}
{"t":"2026-12-01T02:47:00.3Z","pid":400,"face":"script","kind":"out","text":"opened rxe0"}
`,
	2: `{"t":"2026-12-01T02:47:01.4Z","pid":400,"face":"script","kind":"in","text":"modify qp1 err"}
{"t":"2026-12-01T02:47:01.4Z","pid":400,"fa
{"t":"2026-12-01T02:47:01.5Z","pid":400,"face":"script","kind":"out","text":"qp1: RTS → ERR"}
`,
	4: "",
}

func appendFile(t testing.TB, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

func openT(t testing.TB, path string) *Reader {
	t.Helper()
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// createT creates a recording named name in a temporary folder.
func createT(t testing.TB, name string, h Host, o WriterOptions) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	w, err := Create(context.Background(), path, h, o)
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

// recordSnaps records snaps, a reading each, with the reports and
// histories a Tracker makes of them, as a watcher hands them over.
func recordSnaps(t testing.TB, name string, h Host, o WriterOptions, snaps ...*inspect.Snapshot) string {
	t.Helper()
	w, path := createT(t, name, h, o)
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	for i, s := range snaps {
		if err := w.Frame(context.Background(), trackedFrame(tr, uint64(i+1), s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// trackedFrame is the frame inspect's watch makes of s: tr's report on
// it and every history with its change marks.
func trackedFrame(tr *inspect.Tracker, seq uint64, s *inspect.Snapshot) inspect.Frame {
	f := inspect.Frame{Seq: seq, Snapshot: s, Update: tr.Update(s)}
	f.History, f.HistoryGen, f.HistoryGens = tr.HistoriesMarked()
	return f
}
