// Package sysfsmon reads the host's RDMA state from sysfs and procfs: the
// devices and ports of /sys/class/infiniband with their GID and P_Key
// tables, the counters/ and hw_counters/ of devices and ports (as
// snapshots and per-second rates), which netdev, PCI function and NUMA node
// each device belongs to, the device's interrupts and their CPU affinity
// (/proc/interrupts, /proc/irq), and the host facts a troubleshooting
// checklist asks for (loaded modules, kernel and rdma-core versions,
// /dev/infiniband permissions, RLIMIT_MEMLOCK and the credentials it
// applies to, libibverbs' provider configuration), and which processes
// exist and hold /dev/infiniband open (process.go). Poll turns these
// reads into a stream of snapshots with deltas for the dashboard.
//
// It is pure Go and needs no RDMA library: everything comes from files, so
// it works wherever /sys and /proc do, and every read is rooted at a
// configurable sysfs and procfs root (NewFS), which is how the tests run on
// fixture trees recorded in the lab (testdata/rxe0) or built by hand
// (testdata/mlx5).
//
// Vendors differ in what they expose: rxe has no counters/ and fails empty
// gid_attrs entries with EINVAL; mlx5 has a PCI device link, several ports
// and hundreds of IRQs. One odd file or device never hides the others: a
// file that cannot be read or parsed becomes a Warning in the result, and
// only a missing /sys/class/infiniband fails a whole call.
//
// prometheus/procfs reads /proc/stat and the netdev attributes of
// /sys/class/net here. Its InfiniBand reader fails a whole call on one odd
// device and knows no GIDs, LIDs or netdev mapping, and its /proc/interrupts
// parser panics on lines shorter than the CPU header (ERR: and MIS: have
// one column), so those have their own tolerant parsers here, each with a
// fuzz target.
//
// The kernel documents these files in Documentation/ABI/stable/
// sysfs-class-infiniband, Documentation/ABI/testing/sysfs-bus-pci,
// Documentation/filesystems/proc.rst and
// Documentation/core-api/irq/irq-affinity.rst.
package sysfsmon
