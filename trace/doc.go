// Package trace shows every process's RDMA control-path calls as the
// kernel sees them, with eBPF: QP creates, modifies with their whole
// struct ib_qp_attr and mask, destroys, the other objects' creates and
// destroys (PD, CQ, MR, SRQ, ucontext, cm_id, through restrack), QP async
// events, and the failures of uverbs commands that never reached the core.
// A failed modify carries rdma.Check's verdict on the same call.
//
// The BPF side (bpf/trace.bpf.c) is compiled by bpf2go with Debian's clang
// into tracer_bpfel.o, committed with its Go loader so that building needs
// no clang; `make bpf-check` regenerates both and fails on a difference
// (the output is byte-for-byte reproducible, whatever the checkout's path).
// It reads the kernel's structs through CO-RE relocations (bpf/ib.h holds
// only the members it names), resolved at load time against the running
// kernel's BTF and its modules'.
//
// What Linux 6.1 (Debian's 6.1.0-57, the lab's kernel) offers, found in
// the lab under TCG:
//   - fentry/fexit attach to ib_core's and ib_uverbs' functions: the
//     kernel has CONFIG_DEBUG_INFO_BTF_MODULES, /sys/kernel/btf/ib_core and
//     ib_uverbs exist, and cilium/ebpf finds targets and relocations in
//     module BTF. No kprobe fallback was needed; a kernel without BTF gets
//     ErrUnavailable.
//   - The names: ib_create_qp_user (ib_create_qp_kernel for kernel ULPs,
//     not traced), ib_modify_qp_with_udata (uverbs) and ib_modify_qp
//     (kernel ULPs), ib_destroy_qp_user, rdma_restrack_add/del, and the
//     static ib_uverbs_qp_event_handler, which is in BTF.
//   - Debian's 6.1.192 frees PDs, CQs, QPs and SRQs through
//     rdma_restrack_begin_del/rdma_restrack_commit_del (a backport), MRs,
//     contexts and cm_ids through rdma_restrack_del: both are hooked.
//   - A modify's attr is read on entry: on the way, _ib_modify_qp rewrites
//     a RoCE AV's hop limit with the route's (64 in the lab, where
//     rc_pingpong sent 1) and fills the union that holds an IB dlid with
//     the resolved MAC. The rewritten hop limit is reported beside it.
//   - rxe on 6.1 raises no QP async events, so async_event stays silent
//     in the lab.
//   - struct ib_mr keeps no access flags: reg_user_mr, on the driver's
//     reg_user_mr (rxe_reg_user_mr in the lab; each driver's where the
//     kernel has it, the others silently left out), leaves them per
//     thread for restrack_add's MR event. With rxe, 37 programs attach.
//   - Loading and attaching the programs takes seconds under TCG (each
//     program is loaded on its own, so a missing target costs only that
//     program), the 7 QP programs alone (Options.Groups = GroupQP, what
//     the dashboard and the exporter load) less; the rest is a fixed
//     cost: reading the kernel's and ib_core's BTF (docs/trace.md has
//     the figures).
//   - A module's BTF appears in /sys/kernel/btf as it loads. When ib_core
//     or ib_uverbs are absent at Open, their programs are left out and a
//     goroutine looks at that folder once a second; when a module
//     appears, the programs left out for a missing function are tried
//     again and Options.Notify is told how many attached. An attached
//     program holds its module: rmmod ib_uverbs fails while trace runs.
//
// Debian 13's 6.12 (6.12.117, the lab's second kernel: LAB_KERNEL=6.12)
// has every function above in its BTF, rdma_restrack_begin_del and
// rdma_restrack_commit_del included, with the members bpf/ib.h names:
// trace's lab suite passes there unchanged.
//
// The BPF side wakes the reader only when 64 KiB wait in the ring buffer
// (BPF_RB_NO_WAKEUP below, BPF_RB_FORCE_WAKEUP above); Read looks by
// itself every Options.Latency (100 ms unless a reader asks for later)
// for the rest. A wake-up per event had cost the reader many times the
// CPU of batched wake-ups (BenchmarkCreate10kQPs: docs/performance.md).
//
// What tracing costs is measured in the lab by BenchmarkModify (one
// modify, untraced and traced), BenchmarkCreate10kQPs (10,000 QPs
// created and moved to INIT by another process: every QP event must
// arrive) and BenchmarkBurst10kRTS (10,000 QPs moved to RTS, 30,000
// modifies, while read as the dashboard and the exporter read: GroupQP,
// a look a second, an inspect.ModifyQueue emptied by a Watcher dumping
// all the QPs every second; no event may be lost with the 1 MiB ring,
// and every QP's history must hold its traced RTS); docs/trace.md and
// docs/performance.md have the figures. Most of a modify's cost is the
// entry program's ~40 BPF_CORE_READ_BITFIELD_PROBED reads, each a
// bpf_probe_read_kernel call; direct BTF loads of the typed fentry
// arguments would be cheaper (not done). Events the ring buffer cannot
// hold are counted (Tracer.Lost).
//
// The data path is left alone: post, poll and notify handlers are not
// hooked (rxe makes every post a system call, and hardware never enters
// the kernel for them).
//
// Events are read by one goroutine (Tracer.Read) and filtered in user
// space (Filter: pid, comm, qpn, dev). Read ends only at Close: a record
// that does not decode is counted (Tracer.Undecoded) and skipped. The
// dashboard, the exporter and res qp --follow read through FeedModifies
// (feed.go: the QP programs loaded in the background, every modify into
// an inspect.ModifyQueue with its status and losses), which never makes the
// reader wait: a reader that waited for its consumer would leave the ring
// buffer to fill, and the kernel drops what does not fit (Tracer.Lost).
// Run is `verbscope trace`: it prints each event as text or JSON and
// tells the losses as they happen and again at the end.
package trace
