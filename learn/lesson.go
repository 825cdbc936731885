package learn

// Lesson is one lesson of a course, as its markdown file gives it.
type Lesson struct {
	Number int    // from the file name: 02-state-machine.md is lesson 2
	File   string // the file it came from
	Title  string
	Intro  string
	// Requires lists what the lesson needs of the host beyond the verbs
	// shell (`command ibv_rc_pingpong`); unmet says which is missing.
	Requires []Requirement
	// Setup is what the lesson prepares before its first step, run for
	// the learner (a broken pair to find the fault in).
	Setup []Line
	// Background are programs the lesson runs beside the shell (an
	// ibv_rc_pingpong to talk to), started after the setup and ended
	// with the lesson; one command line each.
	Background []string
	// Builtin marks a lesson of the course shipped in the binary
	// (Course): its background programs run without asking. A pack's
	// (LoadDir) run only when allowed (PackPrograms, AllowPrograms).
	Builtin bool
	// Skip, when set, says why this host cannot run the lesson (Expand
	// sets it for a value the host lacks).
	Skip  string
	Steps []Step
}

// Step is one thing the learner does, and how it is judged done.
type Step struct {
	Title    string
	Text     string
	Hint     string  // shown first when the learner asks
	Solution []Line  // shown after the hint; run by --check
	Checks   []Check // all must hold for the step to be done
	Done     string  // what just happened, said once it is done
	Line     int     // where the step starts in its file
}

// Line is one line of a solution.
type Line struct {
	Text string
	// Refused marks a line written `! modify qp1 rtr`: a mistake made on
	// purpose, which the shell must refuse (--check fails if it runs).
	Refused bool
}

// Requirement is one thing a lesson needs of the host.
type Requirement struct {
	Kind string // "command": an executable on $PATH
	Arg  string
}
