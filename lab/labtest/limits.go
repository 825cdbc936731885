package main

import "time"

// The runner's limits, each set from what the step took on the slower of
// this project's 2-core build machines with at least 3x to spare, since
// those machines differ in speed by 2x or more from run to run.
const (
	// packageLimit bounds one package's lab test binary (go test's
	// -test.timeout). The slowest package, cli, took 4m50s in a run on
	// the slower machine (its slowest test, TestResMatchesRdma, 254 s
	// before it was made faster): 3x is 15 minutes.
	packageLimit = 15 * time.Minute

	// benchLimit bounds one package's lab benchmarks: cli's dashboard
	// benchmarks, with 10,000 QPs created by another process, took 6.5
	// minutes on a loaded 2-core machine (the QPs alone 1m55s): 3x, rounded
	// up.
	benchLimit = 20 * time.Minute

	// bootLimit is what the VM may take beyond its packages: booting
	// (4 s under TCG on a quiet host, 84 s seen at load 24 on 2 cores),
	// powering off.
	bootLimit = 3 * time.Minute

	// releaseLimit bounds the wait, after a package's processes ended, for
	// the kernel to release their verbs objects: 10,000 QPs of a killed
	// holder took about 10 s to go in the guest; 3x on a machine twice as
	// slow is a minute.
	releaseLimit = time.Minute
)
