package learn

import (
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

// StartPrograms starts a lesson's background programs; Close ends them.
func (s *Session) StartPrograms(lines []string) error {
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
func (s *Session) endPrograms() string {
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
