// Package export serves the host's RDMA state as Prometheus metrics, for
// `verbscope export`: device and port facts and counters from sysfs
// (sysfsmon), and from RDMA netlink (inspect) the object counts, the QPs by
// state, the state transitions the Tracker saw and the stuck QPs, which no
// other RDMA exporter has.
//
// A Collector (NewCollector) keeps the latest reading of each source,
// fed by Follow, and turns it into const metrics on every
// scrape: a scrape reads the latest state, it never takes a snapshot
// itself, and the Tracker's history lives between scrapes. A source whose
// last reading is more than LateAfter intervals old fails its collectors
// and serves none of their series; a device that goes takes its series
// with it. No label ever carries a QP number, a pid, a GID or a key (the
// owner groupings are OwnerGroupings).
//
// The readers are live's (a live.Host, started by Run): the Collector
// follows each of its feeds, the netlink frames, the sysfs readings and
// the kernel log's lines, on goroutines of their own. The package is
// pure Go.
//
// The handler serves the metrics and /api/v1/qps, the per-QP detail built
// once per reading (what it gives a client that did not authenticate is
// auth.go's rule), with TLS and basic auth from a web config file.
//
// Run is `verbscope export` whole: it starts the host's readers
// (live.Start, what only libibverbs knows handed in by the caller),
// has the Collector follow them, serves it, and with --record hands
// the same readings to a recording (rec.Feed), keeping a file already
// there as FILE.prev (record.go).
package export
