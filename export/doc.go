// Package export serves the host's RDMA state as Prometheus metrics, for
// `verbscope export`: device and port facts and counters from sysfs
// (sysfsmon), and from RDMA netlink (inspect) the object counts, the QPs by
// state, the state transitions the Tracker saw and the stuck QPs, which no
// other RDMA exporter has.
//
// A Collector keeps the latest reading of each source, fed by the caller's
// poll loops (Observe, ObserveSysfs), and turns it into const metrics on
// every scrape: a scrape reads the latest state, it never takes a snapshot
// itself, and the Tracker's history lives between scrapes. No label ever
// carries a QP number, a pid, a GID or a key. The package is pure Go:
// device limits come from the caller (the cli asks libibverbs).
package export
