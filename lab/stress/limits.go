package main

import "time"

// The limits of a stress run, each with at least 3x to spare over what
// the step took on this project's 2-core build machines.
const (
	// unitLimit is go test's -timeout for one package's binary, which
	// runs each test count times at each -cpu: 60 runs at the defaults.
	// UNIT_FIGURE
	unitLimit = 60 * time.Minute

	// stopLimit is how long an interrupted stage may take to stop
	// (labtest powers its VMs off, go test's binaries print their
	// state) before it is killed.
	stopLimit = 30 * time.Second
)
