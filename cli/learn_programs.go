package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/view"
)

// programsAsker is who may allow a pack's programs besides the flag: a
// person at a terminal (ask set) who is not root. As root only
// --allow-programs allows them: a lesson file is text anyone can hand
// out, and a reflexive "y" would run its programs with every privilege.
type programsAsker struct {
	ask  bool
	root bool
	in   io.Reader
	out  io.Writer
}

// allowPrograms decides whether the pack's background programs may run:
// none to run, or --allow-programs, or a yes at the terminal. Otherwise
// it refuses, listing them, before anything has run.
func (lo *learnOptions) allowPrograms(lessons []learn.Lesson, a programsAsker) error {
	progs := learn.PackPrograms(lessons)
	if len(progs) == 0 || lo.allowProgs {
		return nil
	}
	var list strings.Builder
	for _, p := range progs {
		fmt.Fprintf(&list, "  lesson %d (%s): %s\n", p.Lesson, view.Printable(p.File), view.Printable(p.Line))
	}
	who := "as you"
	if a.root {
		who = "as root"
	}
	if a.ask && !a.root {
		fmt.Fprintf(a.out, "The lessons in %s run these programs beside the shell, %s:\n%sRun them? [y/N] ", view.Printable(lo.dir), who, list.String())
		if yes(a.in) {
			lo.allowProgs = true
			return nil
		}
	}
	why := "no terminal to ask at"
	switch {
	case a.root:
		why = "as root only --allow-programs allows them"
	case a.ask:
		why = "not allowed at the prompt"
	}
	return fmt.Errorf("learn: the lessons in %s would run these programs %s (%s):\n%sread them, and if you trust them run again with --allow-programs: %w",
		view.Printable(lo.dir), who, why, list.String(), learn.ErrProgramsNotAllowed)
}

// yes reads one answer line a byte at a time (nothing after it is taken
// from the terminal the shell reads next) and says whether it is yes.
func yes(in io.Reader) bool {
	var line []byte
	b := make([]byte, 1)
	for len(line) < 64 {
		n, err := in.Read(b)
		if n == 1 {
			if b[0] == '\n' {
				break
			}
			line = append(line, b[0])
		}
		if err != nil {
			break
		}
	}
	s := strings.ToLower(strings.TrimSpace(string(line)))
	return s == "y" || s == "yes"
}

// terminalAsker asks at the terminal the command runs on, if any.
func terminalAsker(env *Env) programsAsker {
	return programsAsker{ask: onTerminal(env), root: os.Geteuid() == 0, in: env.Stdin, out: env.Stdout}
}
