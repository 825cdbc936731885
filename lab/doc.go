// Package lab boots Debian's own kernel in qemu with Soft-RoCE (rdma_rxe)
// so that verbscope is tested against the real RDMA stack on hosts whose
// kernel has none.
//
// The pieces, in the order a run needs them:
//
//   - packages.txt, deps.sh: the Debian packages the host needs (qemu,
//     busybox-static, rdma-core and its oracle tools), pinned, installed
//     by `make deps` when missing.
//   - cache.go: the folder of downloaded and built artifacts ($VERBSCOPE_CACHE,
//     else the user cache folder), locked while a run prepares it.
//   - kernel.go: the guest kernel, downloaded with apt-get download, unpacked
//     into the cache (never installed), with vmlinux pulled out of the
//     bzImage because the uncompressed PVH kernel boots 3 s faster under TCG.
//   - modules.go: the kernel modules the guest needs, in dependency order
//     read from each module's .modinfo.
//   - initramfs.go, cpio.go, ldd.go: the guest's root file system, built
//     from the host's own binaries and the libraries ldd names for them,
//     cached by a hash of its inputs.
//   - init.sh: the guest's /init: loads modules, mounts the 9p shares, brings
//     up veth (or virtio-net) and rxe0, runs the command, reports its exit code.
//   - qemu.go, accel.go: the qemu command line and the KVM-or-TCG decision.
//   - vm.go, console.go: one boot: stream the console, find the markers, kill
//     qemu on every exit path.
//   - demo.go: the workload `verbscope dash --demo` runs beside the
//     dashboard in the guest (an ibv_rc_pingpong pair in a loop, a QP held
//     in ERR); the dashboard only shows its label and stops it.
//   - labtest/: the command that builds each package's lab tests and runs
//     them in one boot (make lab-test, make test).
//
// The recipe these follow was measured on this project's build machines; see
// README.md ("The lab") for how to use it by hand.
package lab
