package lab

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCmdline(t *testing.T) {
	for _, tc := range []struct {
		g    guest
		want string
	}{
		{guest{Mode: "run", Role: "single"}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check vs.mode=run vs.role=single"},
		{guest{Mode: "run", Role: "a", IP: "10.0.1.1/24", Peer: "10.0.1.2"}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check vs.mode=run vs.role=a vs.ip=10.0.1.1/24 vs.peer=10.0.1.2"},
		{guest{Mode: "shell", Role: "single", Rows: 40, Cols: 120, Term: "xterm-256color"}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check vs.mode=shell vs.role=single vs.rows=40 vs.cols=120 vs.term=xterm-256color"},
		{guest{Mode: "probe"}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check vs.mode=probe"},
		// A size with a zero side is not passed: stty would shrink the shell to nothing.
		{guest{Mode: "run", Role: "single", TSCkHz: 2096027}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check tsc_early_khz=2096027 vs.mode=run vs.role=single"},
		{guest{Mode: "shell", Rows: 40}, "console=ttyS0 quiet loglevel=3 panic=-1 tsc=reliable clocksource=tsc softlockup_all_cpu_backtrace=1 watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 no_timer_check vs.mode=shell"},
	} {
		if got := tc.g.Cmdline(); got != tc.want {
			t.Errorf("Cmdline(%+v)\n got %q\nwant %q", tc.g, got, tc.want)
		}
	}
}

func TestMachineArgs(t *testing.T) {
	m := machine{Kernel: "/k/vmlinux", Initrd: "/k/i.cpio", Accel: "tcg", MemMB: 2048, CPUs: 2,
		Guest: guest{Mode: "run", Role: "single"}, Shares: []share{{Tag: "lab", Dir: "/tmp/run-1"}}}
	got := strings.Join(m.Args(), " ")
	for _, want := range []string{
		"-accel tcg", "-m 2048", "-smp 2", "-kernel /k/vmlinux", "-initrd /k/i.cpio", "-no-reboot", "-nographic",
		"-virtfs local,path=/tmp/run-1,mount_tag=lab,security_model=none",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "-netdev") {
		t.Error("single VM has a netdev")
	}
	m.Accel = "kvm"
	m.Link = &link{LocalPort: 1000, RemotePort: 1001, MAC: "52:54:00:12:34:01"}
	args := m.Args()
	got = strings.Join(args, " ")
	for _, want := range []string{
		"-accel kvm -cpu host,-arch-capabilities",
		"-netdev socket,id=n0,udp=127.0.0.1:1001,localaddr=127.0.0.1:1000",
		"-device virtio-net-pci,netdev=n0,mac=52:54:00:12:34:01,romfile=",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("args lack %q:\n%s", want, got)
		}
	}
	// The command line is one argument, whatever it holds.
	for i, a := range args {
		if a == "-append" {
			if diff := cmp.Diff(m.Guest.Cmdline(), args[i+1]); diff != "" {
				t.Error(diff)
			}
		}
	}
}
