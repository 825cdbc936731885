// Package cli is verbscope's command line: the subcommands, their flags
// and help, and how their errors become exit statuses. Main runs one
// command line with an Env (the process's streams and environment). Each
// subcommand lives in its own file and only parses arguments and calls
// the package that does the work and prints its result (door_test.go
// holds it to that: no goroutines, no function over 80 lines). The view
// commands share one argument grammar (words.go: flags anywhere,
// iproute2's words, values checked) and print the rows through view
// (view.WriteRows, view.RowStream). The help texts after the flags are
// text files in help/, embedded (help.go).
package cli
