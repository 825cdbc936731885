package export

import (
	"runtime"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/verbscope/verbscope/inspect"
)

// Options tune a Collector; the zero value works.
type Options struct {
	// Version is the verbscope version for verbscope_build_info.
	Version string
	// TopProcesses, when above 0, adds verbscope_process_objects for the
	// that many processes with the most objects per device (by command
	// name); the rest are folded into one series.
	TopProcesses int
}

// Collector is a prometheus.Collector of the host's RDMA state. It keeps
// the latest netlink frame and sysfs reading and what must outlive them
// (transition counts, the QP groups seen), and is safe for concurrent use:
// the poll loops feed it while scrapes read it.
type Collector struct {
	opts Options

	mu    sync.Mutex
	frame inspect.Frame
	// seenFrame and seenSysfs say whether a reading arrived at all.
	seenFrame, seenSysfs bool
	sys                  SysfsReading
	// groups are the (device, port, type) groups of QPs ever seen, so
	// that their series go back to 0 rather than vanish when the last
	// QP of a group is destroyed.
	groups      map[group]bool
	transitions map[transition]uint64
	// counts and stuck are the latest frame's QPs by group and state and
	// its stuck QPs by group, counted once per frame, not per scrape.
	counts map[stateKey]int
	stuck  map[group]int
	// trace is the latest frame's trace status; nil when not traced.
	trace *inspect.TraceStatus
}

type stateKey struct {
	group
	state inspect.QPState
}

// group is the label set of verbscope_qps without the state.
type group struct {
	dev  string
	port uint32
	typ  string
}

type transition struct {
	group
	to string
}

// NewCollector returns a Collector with nothing read yet.
func NewCollector(o Options) *Collector {
	return &Collector{opts: o, groups: map[group]bool{}, transitions: map[transition]uint64{}}
}

// Observe takes the next frame of inspect's watch stream (Watch); frames
// must come in order, each once, since the state changes of each are
// counted. A frame the stream dropped (latest wins) takes its changes
// with it.
func (c *Collector) Observe(f inspect.Frame) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seenFrame = true
	c.trace = f.Trace
	if f.Err != nil || f.Snapshot == nil {
		c.frame.Err = f.Err
		c.frame.Snapshot = nil
		return
	}
	c.frame = f
	idx := qpIndex(f.Snapshot)
	c.counts, c.stuck = map[stateKey]int{}, map[group]int{}
	for i := range f.Snapshot.QPs {
		q := &f.Snapshot.QPs[i]
		g := qpGroupOf(q)
		c.groups[g] = true
		c.counts[stateKey{g, q.State}]++
	}
	for _, a := range f.Update.Stuck {
		if q := idx[a.Key]; q != nil {
			c.stuck[qpGroupOf(q)]++
		}
	}
	for _, sc := range f.Update.StateChanges {
		q := idx[sc.Key]
		if q == nil {
			continue
		}
		c.transitions[transition{qpGroupOf(q), sc.To.String()}]++
	}
}

// ObserveSysfs takes the next sysfs reading.
func (c *Collector) ObserveSysfs(r SysfsReading) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seenSysfs = true
	c.sys = r
}

// Describe sends no descriptions: the Collector is unchecked, since which
// counters exist depends on the devices.
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect sends the metrics of the latest readings.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch <- gauge(descBuild, 1, c.opts.Version, runtime.Version())
	if c.seenSysfs {
		c.collectDevices(ch)
		c.collectCounters(ch)
	}
	if c.seenFrame {
		c.collectNetlink(ch)
		c.collectTrace(ch)
	}
}

// report sends a collector's success and duration.
func report(ch chan<- prometheus.Metric, name string, err error, seconds float64) {
	ok := 1.0
	if err != nil {
		ok = 0
	}
	ch <- gauge(descSuccess, ok, name)
	ch <- gauge(descDuration, seconds, name)
}

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
