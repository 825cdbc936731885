// Package shell is verbscope's verbs shell: a small command language over
// the verbs core (open a device, create PDs, CQs, MRs and QPs, walk a QP
// through its states, post work and poll completions) that checks each
// step against the kernel's rules and explains what is wrong in plain
// words before the kernel says EINVAL.
//
// It holds no terminal code. A Shell (New) is a front.Engine: Exec runs one
// command and returns a Result (text for people, data for --json), or an
// *Error with what, why and fix apart; Complete offers what can come at
// the cursor; State is an immutable snapshot of the objects, readable
// while a command waits, which each command updates with the objects it
// reached (the rest is shared with the snapshot before, not queried
// again); Events streams async events, completions and progress, while
// idle too; Close destroys every object of the session in the order
// libibverbs needs. The standalone go-prompt front end, the
// script mode and the dashboard's pane all drive it through front (which
// also splits input into lines and keeps the history).
package shell
