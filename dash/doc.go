// Package dash runs the dashboard: it wires the system's readers and
// the shell into ui.
//
// Run dials RDMA netlink, starts the host's readers (a live.Host: the
// netlink watch, with trace's modifies when asked, the sysfs readings
// and the kernel log) and the diagnosis of its frames, keeps the last
// minutes in a recording for the rewind (Options.Rewind, rec's Feed),
// opens the verbs
// shell for the pane with its history (or runs the course, learn's
// Tutor, there, with the lesson pane beside it), and runs package ui's model as a
// Bubble Tea program on the caller's terminal until the user quits or
// ctx ends. With Options.Replay it plays a recording (rec's Player)
// instead of reading the system. Package ui imports no cgo code; this package is where the
// cgo shell meets it, through shell/front's interfaces. cli parses the
// flags and calls Run.
package dash
