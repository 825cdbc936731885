// Package inspect reads the host's RDMA state the way `rdma resource show`
// (iproute2's rdma tool, rdma-resource(8)) and `rdma statistic` see it:
// through RDMA netlink, the kernel's nldev interface
// (drivers/infiniband/core/nldev.c, uapi
// include/uapi/rdma/rdma_netlink.h), for every process on the host,
// without cgo and without libibverbs.
//
// A Conn (Dial, conn.go) speaks nldev over a NETLINK_RDMA socket opened
// with github.com/mdlayher/netlink. Its methods mirror the kernel's
// commands: Devices and Ports (RDMA_NLDEV_CMD_GET, PORT_GET), Summary
// (RES_GET), one dump per object kind (QPs, CQs, MRs, PDs, Contexts, SRQs,
// CMIDs), port and per-QP counters (STAT_GET) and the system settings
// (SYS_GET). Snapshot (snapshot.go) takes all of them at once.
//
// A Tracker (NewTracker, tracker.go) is fed successive snapshots and
// notices what changed: objects that appeared or went away, each QP's
// state history with timestamps, QPs in ERR or SQE, QPs stuck on their own
// evidence (their PSNs stopped with PSNs sent that their peer on this host
// never accepted, or their own per-QP retry counters rose; never the
// port's shared counters), and per-process object counts against device
// limits (Usage computes the latter from a snapshot alone), and the
// objects whose creating process has exited (Owner, Update.Dead).
//
// A Watcher (Watch, watch.go) is the live stream for a long-running UI: it takes
// a snapshot at an interval (or on Refresh), runs the Tracker and delivers
// snapshot, changes, histories and errors as Frames on a channel where the
// latest wins. Snapshot takes a context (its deadline is the socket's),
// and cancelling it, or Close on the Conn or the Watcher, interrupts a
// dump in progress instead of waiting behind it. With trace's events
// (WatchOptions.Modifies, Reconcile; touch.go, refresh.go, reconcile.go)
// a reading costs what changed, not what exists: between whole dumps,
// every 30 s by default, it reads only the kinds trace touched, and of
// the QPs those touched and those the kernel moves on its own (connected
// states), each by a get of one QP. Readings share the objects that did
// not change and say which did: each kind carries a generation
// (generation.go; Snapshot states the contract), and readers compare
// generations, never where the objects lie. A QPFollower (NewQPFollower, follow.go)
// turns the Frames into the lines of `verbscope res qp --follow`: QPs
// that appeared or vanished (the Update's), state changes and traced
// modifies (the new history entries); its Follow runs it over a feed of
// frames, and a FollowLine prints itself as text or JSON (View, Text;
// follow_print.go; a traced modify's words are view.Modify's).
//
// rows.go turns objects into the lines `rdma resource show` prints (as
// view.Rows), with the same keys and values as `rdma -j resource show`,
// and filter.go declares their iproute2-style filters (pid=, state=,
// lqpn=0-6 ...) for view's parser, so the CLI and the dashboard show and
// filter what iproute2 does.
//
// Everything the kernel sends is outside input: a malformed reply is an
// error, never a panic, and every decoder has a fuzz target. Unit tests
// replay netlink replies recorded from the lab's real kernel (testdata/);
// lab tests compare against iproute2 in the same VM boot.
package inspect
