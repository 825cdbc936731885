package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// guest holds what /init reads from the kernel command line.
type guest struct {
	Mode       string // "run", "shell" or "probe"
	Role       string // "single", "a" or "b"
	IP         string // address/prefix of eth0, roles a and b
	Peer       string // the other host's address, roles a and b
	Rows, Cols int    // the host terminal, for the shell
	Term       string // $TERM for the shell
	TSCkHz     int    // the TSC's frequency, when known (tsc.go); 0 lets the guest measure it
}

// Cmdline returns the kernel command line for this guest. The console is
// the first serial port because qemu -nographic puts it on stdio; quiet
// keeps the boot log off it; panic=-1 with qemu's -no-reboot makes a
// kernel panic end qemu instead of hanging the run.
func (g guest) Cmdline() string {
	// tsc=reliable: under TCG the kernel finds the emulated TSCs
	// "unsynchronized" and falls back to the HPET, which turns every
	// clock_gettime (and every Go nanotime) into a trapped MMIO read of
	// microseconds; qemu's TSC follows the host's monotonic clock, so it
	// is safe to trust.
	w := []string{"console=ttyS0", "quiet", "loglevel=3", "panic=-1", "tsc=reliable", "clocksource=tsc",
		// A soft lockup shows every CPU's stack, not only the stuck one's:
		// the CPU that holds what the stuck one spins on is the answer.
		"softlockup_all_cpu_backtrace=1",
		// A soft lockup is reported after 2 x watchdog_thresh seconds, an
		// RCU stall after rcu_cpu_stall_timeout: a vCPU that a loaded host
		// leaves unscheduled for a few seconds must not pass for a kernel
		// bug (the console watch stops the run on either), while a real
		// hang, which lasts, is still reported within a minute.
		"watchdog_thresh=30", "rcupdate.rcu_cpu_stall_timeout=60",
		// The IO-APIC timer check counts ticks over a busy wait at boot; on
		// a loaded host TCG runs that wait too slowly, and the kernel
		// panics "IO-APIC + timer doesn't work!" (seen here at load 20 on
		// 2 cores). The emulated timer works; skip the check, as VM guests do.
		"no_timer_check"}
	if g.TSCkHz > 0 {
		w = append(w, "tsc_early_khz="+strconv.Itoa(g.TSCkHz))
	}
	add := func(k, v string) {
		if v != "" {
			w = append(w, "vs."+k+"="+v)
		}
	}
	add("mode", g.Mode)
	add("role", g.Role)
	add("ip", g.IP)
	add("peer", g.Peer)
	if g.Rows > 0 && g.Cols > 0 {
		add("rows", strconv.Itoa(g.Rows))
		add("cols", strconv.Itoa(g.Cols))
	}
	add("term", g.Term)
	return strings.Join(w, " ")
}

// share is a host folder the guest mounts over 9p at /mnt/<Tag>.
type share struct {
	Tag string
	Dir string
}

// link joins two VMs through a qemu UDP socket netdev: each sends to the
// other's port on loopback. (qemu's TCP socket netdev works too, but Nagle
// makes it far slower: docs/performance.md.)
type link struct {
	LocalPort, RemotePort int
	MAC                   string
}

// machine is one qemu invocation.
type machine struct {
	Kernel, Initrd string
	Accel          string // "kvm" or "tcg"
	MemMB, CPUs    int
	Guest          guest
	Shares         []share
	Link           *link
}

// Args returns qemu-system-x86_64's arguments for the machine.
func (m machine) Args() []string {
	// qboot is a minimal firmware: faster than SeaBIOS to the kernel
	// (docs/performance.md), and it prints no banner onto the console.
	a := []string{"-nographic", "-no-reboot", "-nodefaults", "-serial", "mon:stdio", "-bios", "qboot.rom"}
	switch m.Accel {
	case "kvm":
		// arch-capabilities: qemu 7.2 aborts on MSR 0x10a with -cpu host on
		// these hosts' paravirtual KVM otherwise.
		a = append(a, "-accel", "kvm", "-cpu", "host,-arch-capabilities")
	default:
		a = append(a, "-accel", "tcg")
	}
	a = append(a,
		"-m", strconv.Itoa(m.MemMB),
		"-smp", strconv.Itoa(m.CPUs),
		"-kernel", m.Kernel,
		"-initrd", m.Initrd,
		"-append", m.Guest.Cmdline(),
	)
	for _, s := range m.Shares {
		a = append(a, "-virtfs", fmt.Sprintf("local,path=%s,mount_tag=%s,security_model=none", s.Dir, s.Tag))
	}
	if m.Link != nil {
		a = append(a,
			"-netdev", fmt.Sprintf("socket,id=n0,udp=127.0.0.1:%d,localaddr=127.0.0.1:%d", m.Link.RemotePort, m.Link.LocalPort),
			// romfile= : the option ROM is for PXE boot, which the lab never
			// does, and Debian ships it in a package we do not need.
			"-device", fmt.Sprintf("virtio-net-pci,netdev=n0,mac=%s,romfile=", m.Link.MAC))
	}
	return a
}
