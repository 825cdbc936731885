package main

import "time"

// The runner's limits, each set from what the step took on the slower of
// this project's 2-core build machines with at least 3x to spare, since
// those machines differ in speed by 2x or more from run to run.
const (
	// packageLimit bounds one package's lab test binary (go test's
	// -test.timeout). The largest share, cli's half of its tests in one
	// VM, took 9 minutes on an idle 2-core machine and 11 at load 20
	// (in one VM, before the tests were dealt, cli alone ran past the
	// old 10-minute limit): 3x the idle figure, rounded up. Only a hung
	// binary waits this long; the VM's limit is the sum.
	packageLimit = 30 * time.Minute

	// benchLimit bounds one package's lab benchmarks: cli's two dashboard
	// benchmarks, one with 10,000 QPs created by another process, took 11
	// minutes on a 2-core machine at load 20: 3x, rounded up.
	benchLimit = 35 * time.Minute

	// bootLimit is what the VM may take beyond its packages: booting
	// (4 s under TCG on a quiet host, 84 s seen at load 24 on 2 cores),
	// powering off.
	bootLimit = 3 * time.Minute

	// releaseLimit bounds the wait, after a package's processes ended, for
	// the kernel to release their verbs objects: 10,000 QPs of a killed
	// holder took about 10 s to go in the guest; 3x on a machine twice as
	// slow is a minute.
	releaseLimit = time.Minute

	// thenStopLimit is how long an interrupted -then step (go test of
	// the vm-tagged tests) may take to end after SIGTERM before it is
	// killed: its VMs power off in seconds.
	thenStopLimit = 30 * time.Second
)
