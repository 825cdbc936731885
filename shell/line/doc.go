// Package line is the verbs shell's line-mode front ends: a script (-f
// FILE, -c 'CMD; CMD', or commands on stdin), its --json records and its
// progress lines, and the interactive prompt on go-prompt with its
// history file, pasted lines and its handling of Ctrl-C, SIGTERM and
// SIGHUP. Run picks one and drives a front.Engine with it; `verbscope
// shell` and `verbscope learn --plain` call it once their flags are read.
//
// Run owns the goroutines (the progress printer, the prompt's signal
// watch) and the endings: what it returns as a Status was already said,
// and names the process's exit status. It is pure Go: the engine comes
// from the caller (Options.Open), so shell's cgo stays out of it.
package line
