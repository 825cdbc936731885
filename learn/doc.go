// Package learn is verbscope's course: lessons that teach the verbs call
// flow and the QP state machine by doing, each step checked on the
// session's objects and the kernel's, not on what the learner typed.
//
// A lesson is one markdown file (format.go and docs/learn.md describe
// it): a title, an introduction, and steps, each with its text, a
// solution in the shell's own lines, checks in the shell's vocabulary
// (`expect qp1 state=RTR`, `expect cq1 completion opcode=RECV
// status=success`, `expect object pd count=1`, `expect doctor memlock
// verdict=pass|warn`), an optional hint and what
// just happened once it is done. The built-in course is embedded
// (lessons/); a teacher's pack is a directory of the same files.
//
// A Session (session.go) drives a front.Engine, the verbs shell, and
// remembers what the device answered (completions polled, the last
// refusal); Evaluate (check.go) judges a step's checks against the
// shell's State and, through Kernel (kernel.go), what RDMA netlink says
// of the process's objects. RunCheck (runcheck.go) runs every lesson's
// solution and reports each step; Tutor (tutor.go) is itself a
// front.Engine that wraps a fresh shell per lesson, so the line shell and
// the dashboard's pane run the course as they run the shell, with the
// learner's own commands (:hint, :next, ...) beside the verbs; between
// commands its watcher (tutor_watch.go) judges the step again when the
// kernel, the device or another program may have done it, and says so
// as a front.EventLesson. Status (status.go) is what a lesson pane
// shows, with the step's QP for the state diagram. A lesson may prepare
// objects (setup) and run programs beside the shell (programs.go, an
// ibv_rc_pingpong to talk to); Expand (vars.go) fills in this host's
// device, GID index and address. Progress (progress.go) is saved under
// $XDG_STATE_HOME/verbscope.
//
// It is pure Go: it imports the shell's front, not the shell, so the cgo
// core stays where the caller puts it.
package learn
