package export

import (
	"runtime"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/rdma"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Options tune a Collector; the zero value works.
type Options struct {
	// Version is the verbscope version for verbscope_build_info.
	Version string
	// TopProcesses, when above 0, adds verbscope_process_objects for the
	// that many processes with the most objects per device (by command
	// name); the rest are folded into one series.
	TopProcesses int
	// TopOwners, when above 0, adds the owner gauges
	// (verbscope_owner_objects, verbscope_owner_pinned_bytes,
	// verbscope_process_memlock_ratio) for the that many groups of
	// processes with the most objects, each named by its container or
	// systemd unit (owners.ByPlace), or as OwnersBy says; the rest are
	// folded into "other". Owners looks the processes up (nil: Follow
	// takes live.Host.Owners's, which asks about the same processes
	// every frame), again only when the objects change or every
	// owners.Every readings (owners.Cache).
	TopOwners int
	OwnersBy  owners.By
	Owners    owners.Lookup
	// Peers are asked of the other end of a QP the diagnosis judges
	// (--peers, --prometheus); nil asks nobody.
	Peers diagnose.Peers
	// Interval is how often the readers read (live.Options.Interval);
	// a source whose last reading ended more than LateAfter intervals
	// ago is reported failed (zero: never, for callers that feed
	// readings by hand).
	Interval time.Duration
}

// LateAfter is how many intervals a reading may be late before its
// collectors report failure (pace.LateAfter, which the dashboard's
// header goes by too): an alert on verbscope_collector_success must see
// a reading that hangs rather than the last one served as fresh.
const LateAfter = pace.LateAfter

// Collector is a prometheus.Collector of the host's RDMA state. It keeps
// the latest netlink frame and sysfs reading and what must outlive them
// (transition counts, the QP groups seen), and is safe for concurrent use:
// follow feeds it while scrapes read it.
type Collector struct {
	opts Options
	// now is the clock the lateness is judged by (tests use a fake);
	// start stands for the last reading before the first one.
	now   func() time.Time
	start time.Time
	// ready is closed once both sources have delivered a reading.
	ready chan struct{}

	mu    sync.Mutex
	frame inspect.Frame
	// seenFrame and seenSysfs say whether a reading arrived at all;
	// frameAt and sysAt when the last one did.
	seenFrame, seenSysfs bool
	frameAt, sysAt       time.Time
	sys                  sysfsmon.Update
	// groups are the (device, port, type) groups of QPs seen on the
	// devices that still exist, so that their series go back to 0
	// rather than vanish when the last QP of a group is destroyed; a
	// device that goes takes its groups and their counts with it.
	groups map[group]bool
	// transitions are the Tracker's counts of state changes (whole in
	// every frame: Update.Transitions), by group and state entered.
	transitions map[inspect.Transition]uint64
	// counts and stuck are the latest frame's QPs by group and state and
	// its stuck QPs by group, counted once per frame, not per scrape;
	// countsGen is the generation of the QPs counted
	// (inspect.Snapshot.Generation).
	counts    map[stateKey]int
	countsGen uint64
	stuck     map[group]int
	// qps is the latest frame's /api/v1/qps, built on demand.
	qps *qpDoc
	// diag judges the QPs that need a look, frame by frame (Observe's
	// goroutine only); causes counts the latest frame's verdicts by
	// device and cause.
	diag   *diagnose.Diagnoser
	causes map[causeKey]int
	// trace is the latest frame's trace status; nil when not traced.
	trace *inspect.TraceStatus
	// owners are the latest frame's groups of processes (TopOwners);
	// lookups keeps the processes /proc gave as the dashboard does
	// (owners.Cache; Observe's goroutine only).
	owners  []owners.Group
	lookups owners.Cache
	// kmsg counts the RDMA lines of the kernel log, served while
	// follow reads them (kmsgOn).
	kmsg   map[kmsgKey]uint64
	kmsgOn bool
}

type stateKey struct {
	group
	state inspect.QPState
}

// group is the label set of verbscope_qps without the state.
type group struct {
	dev  string
	port uint32
	typ  inspect.QPType
}

// OwnerGroupings are the groupings Options.OwnersBy takes: place (a
// process's container, else its unit), unit, container or pod. Never
// process or host: a label value is a name an operator knows, never a
// pid, and one group is no breakdown.
var OwnerGroupings = []owners.By{owners.ByPlace, owners.ByUnit, owners.ByContainer, owners.ByPod}

// NewCollector returns a Collector with nothing read yet.
func NewCollector(o Options) *Collector {
	return &Collector{opts: o, now: time.Now, start: time.Now(), ready: make(chan struct{}),
		groups: map[group]bool{}, diag: diagnose.New(diagnose.Config{Peers: o.Peers})}
}

// Ready is closed once a netlink frame and a sysfs reading have both
// arrived, failed or not: a server that waits for it serves no empty
// first scrape.
func (c *Collector) Ready() <-chan struct{} { return c.ready }

// markReady closes ready after the first reading of both sources; c.mu
// is held.
func (c *Collector) markReady() {
	select {
	case <-c.ready:
	default:
		if c.seenFrame && c.seenSysfs {
			close(c.ready)
		}
	}
}

// observe takes the next frame of inspect's watch stream (Watch), in
// order. A frame the stream dropped (latest wins) loses nothing: each
// carries the Tracker's whole counts.
func (c *Collector) observe(f inspect.Frame) {
	// /proc is read before the lock: a scrape never waits for it.
	var gs []owners.Group
	if c.opts.TopOwners > 0 && c.opts.Owners != nil && f.Snapshot != nil {
		ps := c.lookups.Of(f, c.opts.Owners)
		by := c.opts.OwnersBy
		if by == "" {
			by = owners.ByPlace
		}
		gs = owners.Top(owners.Groups(ps, by), c.opts.TopOwners)
	}
	// The diagnosis too: a peer asked waits at most its timeout, and
	// only while a QP needs judging.
	verdicts := c.diagnose(f)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seenFrame, c.frameAt = true, c.now()
	c.trace = f.Trace
	defer c.markReady()
	if f.Err != nil || f.Snapshot == nil {
		c.frame.Err = f.Err
		c.frame.Snapshot = nil
		c.qps = nil
		c.countsGen = 0
		return
	}
	c.frame = f
	c.owners = gs
	c.qps = newQPDoc(f.Snapshot, f.History, verdicts)
	c.causes = countCauses(verdicts)
	// An idle host's reading hands over the last one's QPs with their
	// generation: their counts by state stand.
	if gen := f.Snapshot.Generation(rdma.KindQP); gen == 0 || gen != c.countsGen {
		c.countsGen = gen
		c.counts = map[stateKey]int{}
		for i := range f.Snapshot.QPs {
			q := &f.Snapshot.QPs[i]
			g := qpGroupOf(q)
			c.groups[g] = true
			c.counts[stateKey{g, q.State}]++
		}
	}
	c.stuck = map[group]int{}
	if len(f.Update.Stuck) > 0 {
		idx := qpIndex(f.Snapshot)
		for _, a := range f.Update.Stuck {
			if q := idx[a.Key]; q != nil {
				c.stuck[qpGroupOf(q)]++
			}
		}
	}
	// The counts come whole with each frame, so a frame the stream
	// dropped takes none with it; a QP traced between two readings
	// brings its group.
	c.transitions = f.Update.Transitions
	for tr := range c.transitions {
		c.groups[group{dev: tr.Dev, port: tr.Port, typ: tr.Type}] = true
	}
	if len(f.Snapshot.Warnings) == 0 {
		// A snapshot that failed in part may lack a device that is
		// still there.
		c.forgetGoneDevices(f.Snapshot)
	}
}

// forgetGoneDevices drops the QP groups of devices the snapshot no longer
// has (rdma link delete, a driver unloaded): an rxe device added and
// removed a hundred times must leave no series. The Tracker drops their
// transition counts, so a device that comes back starts its counters
// from 0, which Prometheus reads as a reset.
func (c *Collector) forgetGoneDevices(s *inspect.Snapshot) {
	shows := s.Shows()
	for g := range c.groups {
		if !shows(g.dev) {
			delete(c.groups, g)
		}
	}
}

// observeSysfs takes the next sysfs reading: its devices and counters,
// with their errors and durations.
func (c *Collector) observeSysfs(r sysfsmon.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seenSysfs, c.sysAt = true, c.now()
	c.sys = r
	c.markReady()
}

// Describe sends no descriptions: the Collector is unchecked, since which
// counters exist depends on the devices.
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect sends the metrics of the latest readings.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch <- gauge(descBuild, 1, c.opts.Version, runtime.Version())
	c.collectKernelLog(ch)
	now := c.now()
	switch {
	case c.late(c.seenSysfs, c.sysAt, now):
		reportLate(ch, collDevices, c.sysAt)
		reportLate(ch, collCounters, c.sysAt)
	case c.seenSysfs:
		c.collectDevices(ch)
		c.collectCounters(ch)
	}
	switch {
	case c.late(c.seenFrame, c.frameAt, now):
		reportLate(ch, collNetlink, c.frameAt)
	case c.seenFrame:
		c.collectNetlink(ch)
		c.collectTrace(ch)
	}
}

// late reports whether a source's last reading (at; the collector's
// start before the first one) ended more than LateAfter intervals ago.
func (c *Collector) late(seen bool, at, now time.Time) bool {
	if c.opts.Interval <= 0 {
		return false
	}
	if !seen {
		at = c.start
	}
	return now.Sub(at) > LateAfter*c.opts.Interval
}

// report sends a collector's success, duration and when its reading
// ended.
func report(ch chan<- prometheus.Metric, name string, err error, took time.Duration, at time.Time) {
	ok := 1.0
	if err != nil {
		ok = 0
	}
	ch <- gauge(descSuccess, ok, name)
	ch <- gauge(descDuration, took.Seconds(), name)
	ch <- gauge(descLastReading, unixSeconds(at), name)
}

// reportLate sends the failure of a collector whose reading is late, and
// none of its series: stale values are not served as fresh ones. at is
// zero when no reading ever came.
func reportLate(ch chan<- prometheus.Metric, name string, at time.Time) {
	ch <- gauge(descSuccess, 0, name)
	if !at.IsZero() {
		ch <- gauge(descLastReading, unixSeconds(at), name)
	}
}

func unixSeconds(t time.Time) float64 { return float64(t.UnixNano()) / 1e9 }

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return constMetric(d, prometheus.GaugeValue, v, labels)
}

func counter(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return constMetric(d, prometheus.CounterValue, v, labels)
}

// constMetric never panics: a label value that is not valid UTF-8 (a
// driver's odd file) makes an invalid metric, which the registry reports.
func constMetric(d *prometheus.Desc, t prometheus.ValueType, v float64, labels []string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}
