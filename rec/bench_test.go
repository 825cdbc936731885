package rec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
)

// benchQPs and benchBusy are the benchmarks' recordings: 10,000 QPs of
// one process, 100 of them sending.
const benchQPs, benchBusy = 10000, 100

// busyRecording records readings of benchQPs QPs a second apart, benchBusy
// of them sending (their PSNs move every reading), and returns its path;
// naive, when not nil, adds up what storing every reading's objects whole
// would take.
func busyRecording(b *testing.B, name string, readings int, naive *int64) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	ctx := context.Background()
	w, err := Create(ctx, path, Host{}, WriterOptions{})
	if err != nil {
		b.Fatal(err)
	}
	base := make([]inspect.QP, benchQPs)
	for i := range base {
		base[i] = qp(uint32(100+i), 7000, "idle", rdma.QPStateRTS, 0, 0)
	}
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	for r := range readings {
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(r) * time.Second), QPs: append([]inspect.QP(nil), base...)}
		for i := range benchBusy {
			s.QPs[i].SQPSN, s.QPs[i].RQPSN = uint32(r*10), uint32(r*10)
		}
		if naive != nil {
			for i := range s.QPs {
				body, _ := json.Marshal(&s.QPs[i])
				*naive += int64(len(body))
			}
		}
		if err := w.Frame(ctx, trackedFrame(tr, uint64(r+1), s)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// benchRecording records a keyframe span (busyRecording): the worst seek
// is its last reading (a keyframe and 59 readings of changes). naive is
// what storing every reading's objects whole would take.
func benchRecording(b *testing.B) (path string, last int64, naive int64) {
	b.Helper()
	path = busyRecording(b, "bench.vsrec", DefaultKeyEvery, &naive)
	rs, err := openT(b, path).Readings(context.Background(), "res")
	if err != nil {
		b.Fatal(err)
	}
	return path, rs[len(rs)-1].Seq, naive
}

// BenchmarkSeek10kQPs rebuilds the worst reading of a span: the seek a
// replay makes. The target is under 100 ms.
func BenchmarkSeek10kQPs(b *testing.B) {
	path, last, naive := benchRecording(b)
	r := openT(b, path)
	ctx := context.Background()
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := r.snapshot(ctx, last)
		if err != nil || len(s.QPs) != 10000 {
			b.Fatalf("%v, %d QPs", err, len(s.QPs))
		}
	}
	b.ReportMetric(float64(st.Size())/float64(DefaultKeyEvery), "file-bytes/reading")
	b.ReportMetric(float64(naive)/float64(st.Size()), "x-smaller-than-full-frames")
}

// BenchmarkColdSeek10kQPs is the first jump into a span of 10,000 QPs,
// again and again: a Player that has decoded nothing yet rebuilds the
// span's last reading whole (the keyframe's objects, the changes since,
// the Tracker's report against the reading before, every QP's
// history). The target is under 100 ms. cpu-ms is the process's
// CPU time per jump (its goroutines, the GC's), steadier than the wall
// time on a busy host.
func BenchmarkColdSeek10kQPs(b *testing.B) {
	path, _, _ := benchRecording(b)
	r := openT(b, path)
	ctx := context.Background()
	res, err := r.Readings(ctx, "res")
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		q := &Player{r: r, res: res, cache: snapCache{r: r}, hist: histCache{r: r}}
		if f := q.frame(ctx, len(res)-1); f.Err != nil || len(f.Snapshot.QPs) != 10000 {
			b.Fatalf("%v", f.Err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkWriteIdle10kQPs is the recorder's cost per reading on a host
// with 10,000 idle QPs (none changed since the last reading, no
// keyframe due): what recording adds to an idle host every second.
func BenchmarkWriteIdle10kQPs(b *testing.B) {
	const qps = 10000
	ctx := context.Background()
	w, err := Create(ctx, filepath.Join(b.TempDir(), "idle.vsrec"), Host{}, WriterOptions{KeyEvery: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	tr := inspect.NewTracker(inspect.TrackerConfig{})
	seq := uint64(0)
	frame := func() inspect.Frame {
		seq++
		s := &inspect.Snapshot{Time: t0.Add(time.Duration(seq) * time.Second), QPs: make([]inspect.QP, qps)}
		for i := range s.QPs {
			s.QPs[i] = qp(uint32(100+i), 7000, "idle", rdma.QPStateRTS, 0, 0)
		}
		return trackedFrame(tr, seq, s)
	}
	if err := w.Frame(ctx, frame()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		f := frame()
		b.StartTimer()
		if err := w.Frame(ctx, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlay10kQPs is one reading played forward in a replay of
// 10,000 QPs, 100 of them sending: the whole frame the dashboard gets
// (objects, the Tracker's report against the reading before, the QP
// histories). Playing at 64× a recording read every second leaves
// 15.6 ms a reading. seek-ms is a jump back within the span (its
// keyframe decoded already), cold-seek-ms the first jump into it.
func BenchmarkPlay10kQPs(b *testing.B) {
	path, _, _ := benchRecording(b)
	r := openT(b, path)
	ctx := context.Background()
	p, err := NewPlayer(ctx, r, time.Time{})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	// frame runs on the benchmark's goroutine, not the Player's: the
	// Player sits paused after its first frame, waiting for a command
	// that never comes. Its first frame is taken first, not to be
	// measured along.
	<-p.Frames()
	q := &Player{r: r, res: p.res, sys: p.sys, cache: snapCache{r: r}, hist: histCache{r: r}}
	start := time.Now()
	if f := q.frame(ctx, len(q.res)-1); f.Err != nil || len(f.Snapshot.QPs) != 10000 {
		b.Fatalf("%v", f.Err)
	}
	cold := time.Since(start)
	start = time.Now()
	q.frame(ctx, 1)
	seek := time.Since(start)
	i := 1
	for b.Loop() {
		i++
		if i == len(q.res) {
			i = 1 // the span again: its keyframe is kept decoded
		}
		if f := q.frame(ctx, i); f.Err != nil || len(f.Snapshot.QPs) != 10000 {
			b.Fatalf("reading %d: %v", i, f.Err)
		}
	}
	b.ReportMetric(float64(cold.Microseconds())/1000, "cold-seek-ms")
	b.ReportMetric(float64(seek.Microseconds())/1000, "seek-ms")
}
