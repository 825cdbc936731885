// Package live starts a host's readers once and hands their readings to
// whoever consumes them (the dashboard, the exporter, the recorder, `res
// qp --follow`): Start takes Options naming the readers (RDMA netlink's
// watch with trace's modifies and the devices' limits, the sysfs watch,
// the kernel log, the owners' lookup) and returns a Host with one feed
// per source, Frames, Updates and Kernel, so that no source waits on
// another's, and the controls they share (Refresh, SetPaused,
// SetInterval, Drain for a last reading, Close). It reads nothing
// itself: inspect, sysfsmon and trace do; it is pure Go, and what only
// libibverbs knows comes in as functions (live/verbsfacts has them).
package live
