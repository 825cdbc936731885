package labkit

import "time"

// The limits of lab tests, one per kind of wait. Each is set from what
// the step took in the guest (qemu under TCG) on the slower of this
// project's 2-core build machines, with at least 3x to spare: those
// machines differ in speed by 2x or more from run to run. WaitFor logs a
// wait that used more than a third of its limit ("labkit: slow wait"),
// and the lab runner lists those at the end, so a limit that runs short
// shows before it fails.
const (
	// Step is one step of the kernel or of a program after an action: a
	// server listening, a QP reaching a state, a process gone, a device's
	// port coming back. The slowest seen: ibv_rc_pingpong's server
	// listening, 4 s on a loaded host.
	Step = 30 * time.Second

	// Release is the kernel releasing the objects of a process that ended
	// (ib_uverbs' file release destroys them): 10,000 QPs of a killed
	// holder took about 10 s, on a machine twice as slow 20 s.
	Release = time.Minute

	// Run is a short program run to its end: an ibv_rc_pingpong exchange,
	// a shell script of a few dozen commands, a one-shot command. The
	// slowest seen: 18 s (a shell script with a pingpong peer).
	Run = 2 * time.Minute

	// Attach is trace's programs loaded and attached: 1-2 s on a quiet
	// guest, up to 40 s while another VM loads the host.
	Attach = 3 * time.Minute

	// Answer is a busy dashboard's answer to a key: its echo on the
	// screen through tmux. 0.7-0.8 s with 10,000 QPs refreshing every
	// second (BenchmarkDashboard10kQPs); under a minute of QP churn
	// with the dashboard and the exporter both tracing, race-built, the
	// slowest seen: 36 s at a 500 ms refresh on a host loaded 8 deep on
	// its 2 cores, 11-14 s at 1 s (1.3-3.9 s before the churn).
	Answer = 2 * time.Minute

	// Settle is a live reader catching up after a burst: the exporter
	// counting the last modifies trace queued and its last readings.
	// The slowest seen: 51 s, after the same minute of churn.
	Settle = 3 * time.Minute

	// Screen is a terminal program's screen (through tmux) showing what a
	// test waits for, its first frame included: up to 25 s for the
	// dashboard's first full frame with trace loading beside it.
	Screen = 2 * time.Minute
)
