package export

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// recorded returns the snapshot the lab's kernel gave for a scenario
// (inspect/testdata/NAME.json): a Conn whose fake kernel answers each
// request with the replies recorded for that same request.
func recorded(t testing.TB, name string) *inspect.Snapshot {
	t.Helper()
	rec, err := inspect.ReadRecording(filepath.Join("..", "inspect", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	// Each request's recorded answers in turn; the last one repeats.
	answers := map[string][][][]byte{}
	for _, ex := range rec.Exchanges {
		k := requestKey(t, ex.Request)
		answers[k] = append(answers[k], ex.Replies)
	}
	nl := nltest.Dial(func(reqs []netlink.Message) ([]netlink.Message, error) {
		req := reqs[0]
		b, err := req.MarshalBinary()
		if err != nil {
			return nil, err
		}
		k := requestKey(t, b)
		queue := answers[k]
		if len(queue) == 0 {
			return nil, fmt.Errorf("no recorded reply for request type %#x", uint16(req.Header.Type))
		}
		raw := queue[0]
		if len(queue) > 1 {
			answers[k] = queue[1:]
		}
		var out []netlink.Message
		for _, r := range raw {
			var m netlink.Message
			if err := m.UnmarshalBinary(r); err != nil {
				return nil, err
			}
			m.Header.Sequence, m.Header.PID = req.Header.Sequence, nltest.PID
			out = append(out, m)
		}
		if req.Header.Flags&netlink.Dump != 0 {
			out = append(out, netlink.Message{
				Header: netlink.Header{Type: netlink.Done, Flags: netlink.Multi, Sequence: req.Header.Sequence, PID: nltest.PID},
				Data:   binary.NativeEndian.AppendUint32(nil, 0),
			})
		}
		return out, nil
	})
	c := inspect.NewConn(nl)
	defer c.Close()
	proc := filepath.Join(t.TempDir(), "proc")
	if err := rec.WriteProc(proc); err != nil {
		t.Fatal(err)
	}
	c.SetProcRoot(proc)
	s, err := c.Snapshot(context.Background(), inspect.SnapshotOptions{})
	if err != nil {
		t.Fatalf("replaying %s: %v", name, err)
	}
	s.Took = 5 * time.Millisecond
	return s
}

// requestKey identifies a request by its type, dump flag and attributes.
func requestKey(t testing.TB, b []byte) string {
	var m netlink.Message
	if err := m.UnmarshalBinary(b); err != nil {
		t.Fatalf("recorded request: %v", err)
	}
	return fmt.Sprintf("%d/%v/%x", m.Header.Type, m.Header.Flags&netlink.Dump != 0, m.Data)
}

// sysfsFixture reads sysfsmon/testdata/NAME (the lab's rxe0 or the
// mlx5-like tree), with the durations fixed for golden files.
func sysfsFixture(t testing.TB, name string) sysfsmon.Update {
	t.Helper()
	dir := filepath.Join("..", "sysfsmon", "testdata", name)
	fs, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir))
	if err != nil {
		t.Fatal(err)
	}
	r := readSysfs(fs)
	r.DevicesTook, r.CountersTook = time.Millisecond, 2*time.Millisecond
	return r
}

// fakeClock is a clock tests move by hand; it starts at a fixed time, so
// the reading timestamps of golden files never change.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (f *fakeClock) now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *fakeClock) add(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.t = f.t.Add(d)
}

// newTestCollector is NewCollector on a fakeClock at 2026-01-02 03:04:05
// UTC.
func newTestCollector(o Options) (*Collector, *fakeClock) {
	clk := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	c := NewCollector(o)
	c.now, c.start = clk.now, clk.now()
	return c, clk
}

// feed runs snapshots through a Tracker into a new Collector (on a
// fakeClock), as the watch stream does.
func feed(o Options, snaps ...*inspect.Snapshot) *Collector {
	c, _ := newTestCollector(o)
	tr := inspect.NewTracker(inspect.TrackerConfig{Limits: map[string]inspect.Limits{"rxe0": {MaxQP: 1024, MaxCQ: 16384, MaxMR: 262144, MaxPD: 32768}}})
	for _, s := range snaps {
		c.observe(inspect.Frame{Snapshot: s, Update: tr.Update(s)})
	}
	return c
}

// withState returns a copy of s, one second later, where QP lqpn is in
// state st: the recordings hold no QP in ERR, so the transition is made
// from a real RTS snapshot.
func withState(s *inspect.Snapshot, lqpn uint32, st inspect.QPState) *inspect.Snapshot {
	c := *s
	c.Time = s.Time.Add(time.Second)
	c.QPs = append([]inspect.QP(nil), s.QPs...)
	for i := range c.QPs {
		if c.QPs[i].LQPN == lqpn {
			c.QPs[i].State = st
		}
	}
	c.MarkChanged(rdma.KindQP)
	return &c
}

// readSysfs is one reading of fs, as the exporter's sysfs feed hands
// them (live.Options.NoIRQs without --record).
func readSysfs(fs *sysfsmon.FS) sysfsmon.Update {
	w := fs.Watch(context.Background(), sysfsmon.WatchOptions{NoIRQs: true})
	defer w.Close()
	return <-w.Updates()
}
