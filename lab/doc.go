// Package lab boots Debian's own kernel in qemu with Soft-RoCE (rdma_rxe)
// so that verbscope is tested against the real RDMA stack on hosts whose
// kernel has none.
//
// New prepares a Lab from a Cache (the kernel and initramfs it boots);
// Lab.Run boots one VM and runs a script in it, RunPair two joined VMs,
// Shell attaches the terminal to one; StartDemo runs the dashboard's
// demo workload in the guest.
//
// The pieces, in the order a run needs them:
//
//   - packages.txt, deps.sh: the Debian packages the host needs (qemu,
//     busybox-static, rdma-core and its oracle tools), pinned, installed
//     by `make deps` when missing.
//   - cache.go: the folder of downloaded and built artifacts ($VERBSCOPE_CACHE,
//     else the user cache folder), locked while a run prepares it.
//   - kernels.go: the guest kernels the lab boots: Debian 12's 6.1 (the
//     default) and Debian 13's 6.12, picked by Cache.Kernel, `verbscope
//     lab --kernel` or $LAB_KERNEL (`make test LAB_KERNEL=6.12`).
//   - kernel.go: the guest kernel, downloaded with apt-get download, unpacked
//     into the cache (never installed), with vmlinux pulled out of the
//     bzImage (XZ on 6.1, zstd on 6.12) because the uncompressed PVH kernel
//     boots faster under TCG.
//   - aptsource.go: a kernel of another Debian release than the host's
//     comes through a private apt configuration in the cache (its own
//     sources.list naming the host's mirror, package lists and an empty
//     dpkg status), so the host's lists and what it installs stay as they
//     were.
//   - modules.go: the kernel modules the guest needs, in dependency order
//     read from each module's .modinfo, decompressed (6.12's are .ko.xz,
//     and busybox insmod reads only plain ones), the ones a kernel builds
//     in (virtio_pci on 6.12) left out.
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
// How a boot reaches a usable rxe0 in seconds. This project's build
// machines run a kernel without RDMA, and their /dev/kvm is a paravirtual
// KVM that cannot boot a stock kernel, so the lab boots Debian's kernel
// under qemu's TCG emulation (accel.go probes KVM once per host and uses
// it where it really boots). What makes TCG fast enough, each timed on
// those machines (no benchmark: docs/performance.md has the figures, and
// a busy machine takes several times longer):
//
//   - the uncompressed vmlinux, a PVH kernel qemu boots directly: faster
//     under TCG than the XZ bzImage;
//   - qboot firmware (faster than SeaBIOS to the kernel) and an
//     uncompressed cpio;
//   - tsc=reliable (with the TSC's frequency passed when tsc.go knows it):
//     otherwise the guest falls back to the HPET and every clock read
//     traps.
//
// The initramfs holds busybox, the kernel modules in dependency order,
// rdma-core's libraries and tools with every library ldd names, the rxe
// provider and /etc/libibverbs.d, tmux and the C.UTF-8 locale. /init
// (init.sh) loads the modules, mounts the 9p shares, creates veth0 and
// veth1 (10.0.0.1 and 10.0.0.2) and rxe0 on veth0, runs the command,
// prints its exit status on the console between markers and powers off;
// the host passes the status on. A pair (--pair) is two VMs, a at
// 10.0.1.1 and b at 10.0.1.2, each with rxe0 on eth0, joined by a qemu
// UDP socket netdev, because two rxe devices in one 6.1 kernel cannot
// reach each other.
//
// README.md ("The lab") shows how to use it by hand.
package lab
