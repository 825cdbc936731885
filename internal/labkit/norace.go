//go:build !race

package labkit

// RaceBuild says the lab's binaries were built with the race detector
// (see race.go); here they were not.
const RaceBuild = false
