//go:build lab

package trace

import (
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/labkit"
	"github.com/verbscope/verbscope/internal/qpholder"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/verbs"
)

// modifyLoop is one RC QP that b.N times goes RESET→INIT→RESET: two
// ibv_modify_qp(3) calls per iteration, each through uverbs into
// ib_modify_qp_with_udata, where trace's programs sit.
func modifyLoop(b *testing.B) {
	ctx, err := verbs.Open(labkit.Env(b, "LAB_DEV"))
	if err != nil {
		b.Fatal(err)
	}
	defer ctx.Close()
	pd, err := ctx.AllocPD()
	if err != nil {
		b.Fatal(err)
	}
	cq, err := ctx.CreateCQ(16, nil, 0)
	if err != nil {
		b.Fatal(err)
	}
	qp, err := pd.CreateQP(verbs.QPInitAttr{Type: rdma.QPTypeRC, SendCQ: cq, RecvCQ: cq, Cap: rdma.QPCap{MaxSendWR: 1, MaxRecvWR: 1, MaxSendSGE: 1, MaxRecvSGE: 1}})
	if err != nil {
		b.Fatal(err)
	}
	init := &rdma.QPAttr{State: rdma.QPStateInit, Port: 1}
	initMask := rdma.AttrState | rdma.AttrPKeyIndex | rdma.AttrPort | rdma.AttrAccessFlags
	reset := &rdma.QPAttr{State: rdma.QPStateReset}
	b.ResetTimer()
	for range b.N {
		if err := qp.Modify(init, initMask); err != nil {
			b.Fatal(err)
		}
		if err := qp.Modify(reset, rdma.AttrState); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/modify")
}

// BenchmarkModify is the cost of trace on the control path: the same
// modify loop without trace, then with every program attached and the
// events read and decoded as verbscope trace does. (The tracer is opened
// once, between the two: loading takes seconds under TCG.)
func BenchmarkModify(b *testing.B) {
	b.Run("untraced", modifyLoop)
	tr, err := Open(Options{Self: true})
	if err != nil {
		b.Fatal(err)
	}
	var n atomic.Int64
	done := readEach(tr, func(e *Event) {
		if e.Verb == VerbModifyQP {
			n.Add(1)
		}
	})
	var modifies int64
	b.Run("traced", func(b *testing.B) {
		modifyLoop(b)
		modifies += 2 * int64(b.N)
	})
	time.Sleep(time.Second) // let the reader drain the ring buffer
	tr.Close()
	<-done
	lost, err := tr.Lost()
	if err != nil {
		b.Error(err)
	}
	b.Logf("trace saw %d modify events of %d modifies; %d events lost (ring buffer full)", n.Load(), modifies, lost)
	if n.Load() == 0 {
		b.Errorf("trace saw none of %d modifies", modifies)
	}
}

// cpuTime is the user and system CPU time of this process (who ==
// RUSAGE_SELF) or of its waited-for children (RUSAGE_CHILDREN).
func cpuTime(b *testing.B, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// create10k has a helper process (internal/qpholder) create 10,000 RC
// QPs and move each to INIT, then destroy them all, and reports both
// times and the helper's CPU (which includes the BPF programs run in its
// system calls).
func create10k(b *testing.B) {
	const n = 10000
	for range b.N {
		children := cpuTime(b, syscall.RUSAGE_CHILDREN)
		t0 := time.Now()
		_, stop := qpholder.Start(b, n)
		created := time.Since(t0)
		t1 := time.Now()
		stop()
		b.ReportMetric(created.Seconds(), "s/create+INIT")
		b.ReportMetric(time.Since(t1).Seconds(), "s/destroy")
		b.ReportMetric((cpuTime(b, syscall.RUSAGE_CHILDREN) - children).Seconds(), "helper-cpu-s")
	}
}

// BenchmarkCreate10kQPs is trace under a burst: 10,000 QPs created,
// moved to INIT and destroyed by another process, without trace and with
// every program attached and the events read as verbscope trace reads
// them. It reports the events seen of each kind, the events the ring
// buffer lost, and trace's own CPU time (this process: reading and
// decoding; the BPF programs count in the helper's CPU).
func BenchmarkCreate10kQPs(b *testing.B) {
	b.Run("untraced", create10k)
	tr, err := Open(Options{Env: CachedEnv(verbs.DeviceCheckEnv)})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[Verb]int{}
	done := readEach(tr, func(e *Event) {
		mu.Lock()
		seen[e.Verb]++
		mu.Unlock()
	})
	var rounds int
	self := cpuTime(b, syscall.RUSAGE_SELF)
	b.Run("traced", func(b *testing.B) {
		create10k(b)
		rounds += b.N
	})
	time.Sleep(2 * time.Second) // let the reader drain the ring buffer
	traceCPU := cpuTime(b, syscall.RUSAGE_SELF) - self
	tr.Close()
	<-done
	lost, err := tr.Lost()
	if err != nil {
		b.Error(err)
	}
	mu.Lock()
	defer mu.Unlock()
	b.Logf("%d rounds of 10,000 QPs: events %v; %d lost (ring buffer full); this process's CPU while tracing %v (trace's reading and decoding, and the test's own waiting)",
		rounds, seen, lost, traceCPU.Round(time.Millisecond))
	if want := 10000 * rounds; seen[VerbCreateQP] < want-int(lost) || seen[VerbDestroyQP] < want-int(lost) {
		b.Errorf("trace saw %d create_qp and %d destroy_qp of %d each, with %d lost", seen[VerbCreateQP], seen[VerbDestroyQP], want, lost)
	}
}

// readEach reads tr's events in a goroutine, handing each to each, until
// Close; the channel closes when it ends.
func readEach(tr *Tracer, each func(*Event)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			e, err := tr.Read()
			if err != nil {
				return
			}
			each(&e)
		}
	}()
	return done
}

// BenchmarkBurst10kRTS is trace under the burst: another process
// creates 10,000 RC QPs and moves each to RTS (INIT, RTR, RTS: 30,000
// modifies) while trace reads as the dashboard and the exporter do (the
// QP programs only, a look every second, every modify put on an
// inspect.ModifyQueue that a Watcher empties once a second, between
// dumps of all the QPs). It reports the events read and lost, and
// checks that the loss is exact (events read + lost = the burst's) and
// that every modify not lost reached the QPs' histories.
func BenchmarkBurst10kRTS(b *testing.B) {
	const n = 10000
	tr, err := Open(Options{Groups: GroupQP, Latency: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	conn, err := inspect.Dial()
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	q := inspect.NewModifyQueue(0)
	// Count what the reader hands over, by verb, beside the queue.
	var mu sync.Mutex
	seen := map[Verb]int{}
	done := readEach(tr, func(e *Event) {
		mu.Lock()
		seen[e.Verb]++
		mu.Unlock()
		if m, ok := e.tracked(); ok {
			q.Put(m)
		}
	})
	defer func() { tr.Close(); <-done }()
	w := inspect.Watch(context.Background(), conn, inspect.WatchOptions{Interval: time.Second, Modifies: q,
		Snapshot: inspect.SnapshotOptions{NoCounters: true}})
	defer w.Close()
	frames := latestFrame(w)
	for range b.N {
		mu.Lock()
		clear(seen)
		mu.Unlock()
		lost0 := lostNow(b, tr)
		t0 := time.Now()
		pid, stop := qpholder.StartRTS(b, n)
		burst := time.Since(t0)
		// Every event is in the ring buffer once the helper said ready;
		// the reader looks at least once a second, and the Watcher takes
		// the queue once a second after a dump of 10,000 QPs (seconds
		// under TCG). 5 minutes is far over 3x what that takes.
		var f inspect.Frame
		var lost uint64
		labkit.WaitFor(b, 5*time.Minute, "the burst's events read or lost, and in the histories", func() bool {
			lost = lostNow(b, tr) - lost0
			mu.Lock()
			read := seen[VerbCreateQP] + seen[VerbModifyQP]
			mu.Unlock()
			if uint64(read)+lost < 4*n {
				return false
			}
			f = frames()
			return f.Snapshot != nil && rtsInHistories(f, pid) >= n-int(lost)
		})
		mu.Lock()
		creates, modifies := seen[VerbCreateQP], seen[VerbModifyQP]
		mu.Unlock()
		hist := rtsInHistories(f, pid)
		b.ReportMetric(burst.Seconds(), "s/burst")
		b.ReportMetric(float64(lost), "lost")
		b.ReportMetric(float64(modifies), "modifies-read")
		b.ReportMetric(float64(hist), "QPs-with-traced-RTS")
		b.Logf("10,000 QPs to RTS in %v: read %d create_qp and %d modify_qp of %d and %d, %d lost (kernel %d, undecoded %d); %d QPs' histories hold their traced RTS",
			burst.Round(time.Millisecond), creates, modifies, n, 3*n, lost, lost-tr.Undecoded(), tr.Undecoded(), hist)
		if uint64(creates+modifies)+lost != 4*n {
			b.Errorf("events read (%d) + lost (%d) = %d, want the burst's %d exactly", creates+modifies, lost, uint64(creates+modifies)+lost, 4*n)
		}
		stop()
	}
}

// lostNow is every event trace lost so far: the kernel's and the
// undecodable records.
func lostNow(b *testing.B, tr *Tracer) uint64 {
	lost, err := tr.Lost()
	if err != nil {
		b.Fatal(err)
	}
	return lost + tr.Undecoded()
}

// latestFrame keeps the newest frame of w; the function returns it.
func latestFrame(w *inspect.Watcher) func() inspect.Frame {
	var mu sync.Mutex
	var last inspect.Frame
	go func() {
		for f := range w.Frames() {
			if f.Snapshot != nil {
				mu.Lock()
				last = f
				mu.Unlock()
			}
		}
	}()
	return func() inspect.Frame {
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}

// rtsInHistories counts the QPs of pid whose history holds a traced,
// successful modify to RTS.
func rtsInHistories(f inspect.Frame, pid uint32) int {
	n := 0
	for _, h := range f.History {
		for _, e := range h {
			if m := e.Modify; m != nil && m.PID == int(pid) && m.Ret == 0 && m.HasState && m.To == rdma.QPStateRTS {
				n++
				break
			}
		}
	}
	return n
}
