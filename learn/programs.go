package learn

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/verbscope/verbscope/internal/syncio"
)

// program is one background program of a lesson.
type program struct {
	cmd  *exec.Cmd
	out  *syncio.Buffer
	done chan struct{}
}

// ErrProgramsNotAllowed is the refusal to start a pack's background
// programs nobody allowed: a lesson file is text anyone can write and
// hand out, and its programs run as the learner (often root, for RDMA).
var ErrProgramsNotAllowed = errors.New("a lesson pack's programs run only when allowed (verbscope learn --allow-programs)")

// PackProgram is one background program a lesson of a pack would run.
type PackProgram struct {
	Lesson int    // the lesson's number
	File   string // the lesson's file
	Line   string // the command line, as it will run (after Expand)
}

// PackPrograms lists the background programs of the lessons that did
// not ship with verbscope, in the order they would run: what a teacher's
// pack asks to run on this host, for the learner to read before
// allowing it. Built-in lessons' programs are not listed: they came
// with the binary.
func PackPrograms(lessons []Lesson) []PackProgram {
	var out []PackProgram
	for _, l := range lessons {
		if l.Builtin || l.Skip != "" {
			continue
		}
		for _, line := range l.Background {
			out = append(out, PackProgram{Lesson: l.Number, File: l.File, Line: line})
		}
	}
	return out
}

// Prepare readies the session for lesson l: its setup lines, then its
// background programs, which a pack's lesson may start only when allow
// is set (ErrProgramsNotAllowed otherwise).
func (s *session) Prepare(ctx context.Context, l Lesson, allow bool) error {
	if len(l.Background) > 0 && !l.Builtin && !allow {
		return fmt.Errorf("learn: lesson %d (%s) would run %s: %w", l.Number, l.File, strings.Join(l.Background, "; "), ErrProgramsNotAllowed)
	}
	if err := s.Run(ctx, l.Setup); err != nil {
		return err
	}
	return s.startPrograms(l.Background)
}

// startPrograms starts a lesson's background programs; Close ends them.
func (s *session) startPrograms(lines []string) error {
	for _, line := range lines {
		argv, err := splitWords(line)
		if err != nil || len(argv) == 0 {
			return fmt.Errorf("learn: background program %q: %v", line, err)
		}
		p := &program{cmd: exec.Command(argv[0], argv[1:]...), out: syncio.NewBuffer(), done: make(chan struct{})}
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			return fmt.Errorf("learn: start %s: %w", argv[0], err)
		}
		go func() { p.cmd.Wait(); close(p.done) }()
		s.mu.Lock()
		s.programs = append(s.programs, p)
		s.mu.Unlock()
	}
	return nil
}

// endPrograms kills the programs still running and waits for them; it
// returns what each printed, for a failed step's report.
func (s *session) endPrograms() string {
	s.mu.Lock()
	progs := s.programs
	s.programs = nil
	s.mu.Unlock()
	var b strings.Builder
	for _, p := range progs {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
		fmt.Fprintf(&b, "%s said:\n%s", p.cmd.Path, p.out.String())
	}
	return b.String()
}
