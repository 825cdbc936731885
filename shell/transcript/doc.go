// Package transcript keeps a verbs shell's session where a recorder can
// read it: every command line entered and the answer the user saw (errors
// included), as JSON lines in a file per shell in the session directory
// (Dir), written by the engine Wrap returns. `verbscope record` and the
// dashboard's rewind tail that directory (Tail) into their recordings, and
// a replay shows the session up to the time it shows.
//
// Writing never fails the shell: without a usable directory there is no
// transcript, and nothing is said. It is pure Go (no cgo), so rec and the
// dashboard read its Line too.
package transcript
