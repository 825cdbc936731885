// Package owners answers "who holds what": it joins inspect's objects
// (every process's QPs, CQs, MRs, PDs, ... from RDMA netlink) with what
// sysfsmon reads of each process (command line, user, cgroup with its
// systemd unit, container and Kubernetes pod, RLIMIT_MEMLOCK), and groups
// them by process, unit, container or pod.
//
// Read turns a snapshot into one Process per thread group; Groups folds
// them by a By (ParseBy reads one), Top keeps the largest groups and folds
// the rest, HostOf sums the host; each Group prints as a view.Row
// (rows.go) that `verbscope res owners`, the dashboard's owners view and
// the exporter share, with iproute2-style filter words registered for kind
// "owners".
//
// Pinned bytes are the sum of the process's MR lengths as netlink reports
// them (RDMA_NLDEV_ATTR_RES_MRLEN); ib_umem_get
// (drivers/infiniband/core/umem.c) charges the same pages to the process's
// pinned memory and refuses a registration past RLIMIT_MEMLOCK unless the
// process has CAP_IPC_LOCK. An on-demand-paging MR pins nothing though
// netlink gives its length, so the figure is what the process could pin at
// most.
//
// It reads nothing itself: the caller passes the lookup (normally
// sysfsmon.FS.ProcessOwner), so it is tested on made-up processes.
package owners
