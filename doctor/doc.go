// Package doctor is verbscope's troubleshooting checklist: the checks an
// RDMA engineer runs, in order, when "ibv_devinfo shows the device but
// nothing works" — kernel modules (ib_umad included), devices visible to
// the kernel and to libibverbs, rdma-core against the kernel's uverbs
// ABI, uverbs permissions, ports ACTIVE with usable GIDs,
// RLIMIT_MEMLOCK (this process's, and every RDMA process's against the
// bytes its MRs pin), a real memory registration and QP creation, interrupts
// spread over CPUs, verbs objects left behind by dead processes, and
// object counts against the device limits.
//
// The checks (checks.go and check_*.go) are pure functions of Facts
// (facts.go): what sysfsmon read from sysfs and procfs, what inspect
// dumped over RDMA netlink, and what libibverbs answered (through verbs).
// Each returns a Result with a verdict (pass, warn, fail, or n/a with the
// reason), the evidence it looked at with where each value came from, and
// the fix. Checks lists them, Select picks some by id and NeedsOf says
// what they need gathered; Run runs them over Facts into a Report. Tests
// build Facts from sysfsmon's fixture trees and hand-made netlink
// objects; Gather (gather.go) is the thin layer that collects them on
// the live system, including the one part that changes it: the probe
// (probe.go) opens each device, registers memory and creates a QP, and
// destroys all of it.
//
// RenderText and RenderJSON (render.go) print a Report for people or as
// JSON with stable keys; the CLI (cli/doctor.go) adds flags and the exit
// status.
package doctor
