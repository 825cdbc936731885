//go:build race

package labkit

// RaceBuild says the lab's binaries were built with the race detector:
// labtest -race (make lab-test) builds the tests and the verbscope on
// the guest's PATH alike, and the detector's shadow memory makes a
// process's memory 5 to 10 times a release build's (Go's race detector
// documentation), so a memory target is judged against 5 times itself.
const RaceBuild = true
