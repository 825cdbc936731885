// Package sysfsmon reads the host's RDMA state from sysfs and procfs: the
// devices and ports of /sys/class/infiniband with their GID and P_Key
// tables, the counters/ and hw_counters/ of devices and ports (as
// snapshots and per-second rates), which netdev, PCI function and NUMA
// node each device belongs to, the device's interrupts and their CPU
// affinity (/proc/interrupts, /proc/irq), and the host facts a
// troubleshooting checklist asks for (loaded modules, kernel and rdma-core
// versions, /dev/infiniband permissions, RLIMIT_MEMLOCK and the
// credentials it applies to, libibverbs' provider configuration), and
// which processes exist and hold /dev/infiniband open (process.go), and
// who a process is: its command line, user, cgroup with the systemd unit,
// container and Kubernetes pod the path names, and its RLIMIT_MEMLOCK
// (owner.go, cgroup.go).
//
// A Watcher (watch.go) is the one loop that reads them live, for the
// dashboard's sysfs views and the exporter alike, with the controls of
// inspect's Watcher:
//
//	w := fsys.Watch(ctx, sysfsmon.WatchOptions{Interval: time.Second, FullEvery: 10})
//	defer w.Close()
//	for u := range w.Updates() { ... } // Update: devices, counters, IRQs, rates
//	w.SetInterval(500 * time.Millisecond) // restarts the pause under way
//	w.SetPaused(true)                     // no reading until SetPaused(false), which reads at once
//	w.Refresh()                           // a reading now
//
// Updates holds one reading; a newer one replaces one not yet received,
// and nothing in an Update changes after it is sent (readings share the
// GID tables they kept, never write them). Rates compare each reading with
// the one before, over the real time between their counters, so a pause or
// a missed reading only widens their window. FullEvery spaces out what
// rarely changes: the readings between two full ones read the port states
// and counters (through files kept open) and keep the GID tables and IRQs;
// a full reading reads a GID table again only when the port's state or the
// host's addresses changed. The pause runs from the end of one reading to
// the start of the next (internal/pace times it, as it does inspect's).
//
// It is pure Go and needs no RDMA library: everything comes from files, so
// it works wherever /sys and /proc do, and every read is rooted at a
// configurable sysfs and procfs root (NewFS; NewDefaultFS is the live
// system's), which is how the tests run on fixture trees recorded in the
// lab (testdata/rxe0) or built by hand (testdata/mlx5).
//
// rows.go makes each reading a view.Row; views.go is what the sysfs view
// commands print beyond view's table and JSON: the rows their filters
// pass (DeviceRows, PortRows, GIDRows, CounterRows), devices' details,
// the GID to use, a device's IRQs under its facts line; filters.go
// checks the devices and ports the words name (CheckFilters).
//
// Vendors differ in what they expose: rxe has no counters/ and fails empty
// gid_attrs entries with EINVAL; mlx5 has a PCI device link, several ports
// and hundreds of IRQs. One odd file or device never hides the others: a
// file that cannot be read or parsed becomes a Warning in the result, and
// only a missing /sys/class/infiniband fails a whole call.
//
// prometheus/procfs reads /proc/stat and the netdev attributes of
// /sys/class/net here. Its InfiniBand reader fails a whole call on one odd
// device and knows no GIDs, LIDs or netdev mapping, and its
// /proc/interrupts parser panics on lines shorter than the CPU header
// (ERR: and MIS: have one column), so those have their own tolerant
// parsers here, each with a fuzz target.
//
// The kernel documents these files in Documentation/ABI/stable/
// sysfs-class-infiniband, Documentation/ABI/testing/sysfs-bus-pci,
// Documentation/filesystems/proc.rst and
// Documentation/core-api/irq/irq-affinity.rst; the kernel log, of which
// FollowKernelLog keeps the RDMA drivers' lines, in
// Documentation/ABI/testing/dev-kmsg.
package sysfsmon
