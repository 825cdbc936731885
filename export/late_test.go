package export

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mdlayher/netlink"
	"github.com/mdlayher/netlink/nltest"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/testtree"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/sysfsmon"
)

// scrapeState is what one scrape says of the collectors: success and
// last reading by collector, and how many series each family has.
type scrapeState struct {
	success, lastReading map[string]float64
	families             map[string]int
}

func scrapeOf(t *testing.T, c *Collector) scrapeState {
	t.Helper()
	st := scrapeState{success: map[string]float64{}, lastReading: map[string]float64{}, families: map[string]int{}}
	for _, mf := range gather(t, c) {
		st.families[mf.GetName()] = len(mf.GetMetric())
		for _, m := range mf.GetMetric() {
			coll := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "collector" {
					coll = l.GetValue()
				}
			}
			switch mf.GetName() {
			case "verbscope_collector_success":
				st.success[coll] = m.GetGauge().GetValue()
			case "verbscope_last_reading_timestamp_seconds":
				st.lastReading[coll] = m.GetGauge().GetValue()
			}
		}
	}
	return st
}

// blockingFixture copies the lab's rxe0 sysfs fixture and makes one
// counter file block (testtree.Block).
func blockingFixture(t *testing.T) (*sysfsmon.FS, *testtree.Blocked) {
	t.Helper()
	dir := testtree.Copy(t, filepath.Join("..", "sysfsmon", "testdata", "rxe0"))
	b := testtree.Block(t, filepath.Join(dir, "sys", "devices", "virtual", "infiniband", "rxe0", "ports", "1", "hw_counters", "completer_retry_err"))
	fs, err := sysfsmon.NewFS(filepath.Join(dir, "sys"), filepath.Join(dir, "proc"), sysfsmon.WithHostRoot(dir))
	if err != nil {
		t.Fatal(err)
	}
	return fs, b
}

// TestLateSysfsReadingFails: a counter file that blocks holds the poll
// loop's reading; once the last reading is more than three intervals old
// (or, before the first, the start is) the devices and counters
// collectors report 0 and none of their series, with the timestamp of
// the last reading that did end.
func TestLateSysfsReadingFails(t *testing.T) {
	const interval = time.Second
	c, clk := newTestCollector(Options{Interval: interval})
	fs, blocked := blockingFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	h, err := live.Start(ctx, live.Options{Interval: interval, FS: fs, Sysfs: true, NoIRQs: true})
	if err != nil {
		t.Fatal(err)
	}
	go func() { c.follow(h, followAlso{}); close(done) }()
	t.Cleanup(func() {
		cancel()
		for {
			select {
			case <-done:
				return
			default:
				blocked.Release()
				time.Sleep(5 * time.Millisecond)
			}
		}
	})

	st := scrapeOf(t, c)
	if _, ok := st.success[collDevices]; ok {
		t.Errorf("before the first reading is due: %v, want no sysfs collector", st.success)
	}
	clk.add(LateAfter*interval + 1)
	st = scrapeOf(t, c)
	if st.success[collDevices] != 0 || st.success[collCounters] != 0 || st.families["verbscope_device_info"] != 0 {
		t.Errorf("first reading late: success %v, device_info %d series; want 0, 0 and none", st.success, st.families["verbscope_device_info"])
	}
	if _, ok := st.lastReading[collDevices]; ok {
		t.Errorf("no reading ever ended, yet a timestamp: %v", st.lastReading)
	}

	blocked.Await()
	waitFor(t, "the blocked reading to end", func() bool { return scrapeOf(t, c).success[collCounters] == 1 })
	at := clk.now()
	st = scrapeOf(t, c)
	if st.families["verbscope_port_retransmits_total"] != 1 || st.lastReading[collCounters] != unixSeconds(at) {
		t.Errorf("after the reading: %v, retransmits %d series; want the reading's time %v and the counter", st.lastReading, st.families["verbscope_port_retransmits_total"], unixSeconds(at))
	}
	// The next reading blocks again at the FIFO.
	clk.add(LateAfter * interval)
	if st := scrapeOf(t, c); st.success[collCounters] != 1 {
		t.Errorf("exactly three intervals late: success %v, want still 1", st.success)
	}
	clk.add(1)
	st = scrapeOf(t, c)
	if st.success[collDevices] != 0 || st.success[collCounters] != 0 || st.families["verbscope_port_retransmits_total"] != 0 {
		t.Errorf("hung reading: success %v, retransmits %d series; want 0 and none", st.success, st.families["verbscope_port_retransmits_total"])
	}
	if st.lastReading[collCounters] != unixSeconds(at) {
		t.Errorf("hung reading: last reading %v, want %v", st.lastReading[collCounters], unixSeconds(at))
	}
}

// TestLateNetlinkReadingFails: a netlink dump that never ends (a fake
// kernel that does not answer) under the real watch loop: the netlink
// collector reports 0 once three intervals pass, and its QP series go.
func TestLateNetlinkReadingFails(t *testing.T) {
	const interval = time.Second
	c, clk := newTestCollector(Options{Interval: interval})
	c.observe(inspect.Frame{Snapshot: recorded(t, "rc-rts")})
	release := make(chan struct{})
	nl := nltest.Dial(func([]netlink.Message) ([]netlink.Message, error) {
		<-release
		return nil, errors.New("released")
	})
	conn := inspect.NewConn(nl)
	ctx, cancel := context.WithCancel(context.Background())
	w := inspect.Watch(ctx, conn, inspect.WatchOptions{Interval: interval})
	go func() {
		for f := range w.Frames() {
			c.observe(f)
		}
	}()
	t.Cleanup(func() { cancel(); close(release); w.Close(); conn.Close() })

	if st := scrapeOf(t, c); st.success[collNetlink] != 1 || st.families["verbscope_qps"] == 0 {
		t.Fatalf("fresh: success %v, %d verbscope_qps series", st.success, st.families["verbscope_qps"])
	}
	clk.add(LateAfter*interval + 1)
	st := scrapeOf(t, c)
	if st.success[collNetlink] != 0 || st.families["verbscope_qps"] != 0 || st.families["verbscope_resources"] != 0 {
		t.Errorf("dump hangs: success %v, qps %d and resources %d series; want 0, none, none",
			st.success, st.families["verbscope_qps"], st.families["verbscope_resources"])
	}
	if st.lastReading[collNetlink] == 0 {
		t.Errorf("dump hangs: no timestamp of the last reading: %v", st.lastReading)
	}
	rec := httptest.NewRecorder()
	sensitiveAPI(c).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/qps", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "a reading hangs") {
		t.Errorf("/api/v1/qps while the dump hangs: %d %q, want 503", rec.Code, rec.Body)
	}
}

// waitFor polls cond every 5 ms for up to 30 s (a reading of the fixture
// takes under 10 ms; 30 s leaves room for a loaded machine under -race).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
