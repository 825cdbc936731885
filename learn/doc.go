// Package learn is verbscope's course: lessons that teach the verbs call
// flow and the QP state machine by doing, each step checked on the
// session's objects and the kernel's, not on what the learner typed.
//
// A lesson is one markdown file (format.go and docs/learn.md describe
// it): a title, an introduction, and steps, each with its text, a
// solution in the shell's own lines, checks in the shell's vocabulary
// (`expect qp1 state=RTR`, `expect cq1 completion opcode=RECV
// status=success`, `expect object pd count=1`, `expect doctor memlock
// verdict=pass|warn`), an optional hint and what just happened once it
// is done. Course is the built-in course (embedded, lessons/); LoadDir
// reads a teacher's pack, a directory of the same files.
//
// Tutor (NewTutor) is itself a front.Engine that wraps a fresh shell per
// lesson, so the line shell and the dashboard's pane run the course as
// they run the shell, with the learner's own commands (:hint, :next,
// ...) beside the verbs. Each step's checks are judged (check.go) on the
// shell's State, on what its session saw (completions polled, the last
// refusal: session.go) and, through a Kernel (Netlink), on what RDMA
// netlink says of the process's objects; between commands the tutor's
// watcher (tutor_watch.go) judges the step again when the kernel, the
// device or another program may have done it, and says so as a
// front.EventLesson. Status is what a lesson pane shows, with the
// step's QP for the state diagram. RunCheck runs every lesson's
// solution and reports each step. A lesson may prepare objects (setup)
// and run programs beside the shell (PackPrograms lists a pack's);
// Expand fills in this host's device, GID index and address
// (HostVars). Progress (LoadProgress, ProgressPath) is saved under
// $XDG_STATE_HOME/verbscope.
//
// It is pure Go: it imports the shell's front, not the shell, so the cgo
// core stays where the caller puts it.
package learn
