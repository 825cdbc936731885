package learn

import (
	"fmt"
	"path"
	"strconv"
	"strings"
)

// A lesson file is markdown:
//
//	# The QP state machine          the title (the first line)
//	text ...                        the introduction
//	```requires                     optional: what the host must have
//	command ibv_rc_pingpong
//	```
//	```setup                        optional: shell lines the lesson runs
//	open; pd                        before its first step
//	```
//	```background                   optional: programs run beside the
//	ibv_rc_pingpong -g {gid_index}  shell for the lesson ({dev},
//	```                             {gid_index} and {ip}: Expand)
//	## Move qp1 to INIT             a step, as many as needed
//	text ...                        what to do and why
//	```solution                     the shell lines that do it; a line
//	modify qp1 init port=1          written `! LINE` must be refused
//	```
//	```check                        one `expect` per line, all must hold
//	expect qp1 state=INIT
//	```
//	```hint                         optional
//	```done                         optional: what just happened
//
// Other fenced blocks (```text) are part of the text. The lesson's
// number is the file name's leading digits (02-state-machine.md).

// blocks are the fenced blocks the format gives a meaning.
var blocks = map[string]bool{"requires": true, "setup": true, "background": true, "solution": true, "check": true, "hint": true, "done": true}

// parse reads one lesson file. Its errors name the file and line.
func parse(name string, src []byte) (Lesson, error) {
	l := Lesson{File: name}
	base := path.Base(name)
	digits := len(base) - len(strings.TrimLeft(base, "0123456789"))
	n, err := strconv.Atoi(base[:digits])
	if err != nil || n <= 0 {
		return l, fmt.Errorf("learn: %s: a lesson file's name starts with its number (02-state-machine.md)", name)
	}
	l.Number = n
	p := parser{l: &l, name: name}
	for i, raw := range strings.Split(strings.ReplaceAll(string(src), "\r\n", "\n"), "\n") {
		if err := p.line(i+1, raw); err != nil {
			return l, err
		}
	}
	if err := p.finish(); err != nil {
		return l, err
	}
	return l, nil
}

type parser struct {
	l       *Lesson
	name    string
	fence   string // the block being read ("" outside one)
	other   bool   // inside a fence that is part of the text
	blockAt int
	text    []string // the intro's or the current step's text
	block   []string
}

func (p *parser) errorf(line int, format string, args ...any) error {
	return fmt.Errorf("learn: %s:%d: %s", p.name, line, fmt.Sprintf(format, args...))
}

func (p *parser) step() *Step {
	if len(p.l.Steps) == 0 {
		return nil
	}
	return &p.l.Steps[len(p.l.Steps)-1]
}

func (p *parser) line(no int, raw string) error {
	trimmed := strings.TrimSpace(raw)
	if p.fence != "" {
		if trimmed == "```" {
			return p.endBlock(no)
		}
		p.block = append(p.block, raw)
		return nil
	}
	if strings.HasPrefix(trimmed, "```") {
		if info := strings.TrimSpace(strings.TrimPrefix(trimmed, "```")); blocks[info] && !p.other {
			p.fence, p.blockAt, p.block = info, no, nil
			return nil
		}
		p.other = !p.other
	}
	switch {
	case p.other || !strings.HasPrefix(raw, "#"):
		p.text = append(p.text, raw)
	case strings.HasPrefix(raw, "# "):
		if p.l.Title != "" {
			return p.errorf(no, "a lesson has one title (# …); steps are ## …")
		}
		p.l.Title = strings.TrimSpace(raw[2:])
	case strings.HasPrefix(raw, "## "):
		p.flushText()
		p.l.Steps = append(p.l.Steps, Step{Title: strings.TrimSpace(raw[3:]), Line: no})
	default:
		p.text = append(p.text, raw)
	}
	if p.l.Title == "" && trimmed != "" {
		return p.errorf(no, "a lesson starts with its title: # TITLE")
	}
	return nil
}

// flushText gives the text read so far to the intro or the step.
func (p *parser) flushText() {
	text := strings.TrimSpace(strings.Join(p.text, "\n"))
	p.text = nil
	if s := p.step(); s != nil {
		s.Text = text
	} else {
		p.l.Intro = text
	}
}

func (p *parser) endBlock(no int) error {
	kind, body := p.fence, strings.TrimSpace(strings.Join(p.block, "\n"))
	p.fence = ""
	s := p.step()
	if kind == "requires" || kind == "setup" || kind == "background" {
		if s != nil {
			return p.errorf(p.blockAt, "```%s belongs to the introduction, before the first step", kind)
		}
		switch kind {
		case "setup":
			p.l.Setup = solutionLines(body)
			return nil
		case "background":
			for _, t := range strings.Split(body, "\n") {
				if t = strings.TrimSpace(t); t != "" {
					p.l.Background = append(p.l.Background, t)
				}
			}
			return nil
		}
		return p.requires(body)
	}
	if s == nil {
		return p.errorf(p.blockAt, "```%s belongs to a step (## …)", kind)
	}
	switch kind {
	case "hint":
		s.Hint = body
	case "done":
		s.Done = body
	case "solution":
		s.Solution = solutionLines(body)
	case "check":
		for i, t := range p.block {
			if strings.TrimSpace(t) == "" {
				continue
			}
			c, err := parseCheck(t)
			if err != nil {
				return p.errorf(p.blockAt+1+i, "%v", err)
			}
			c.Line = p.blockAt + 1 + i
			s.Checks = append(s.Checks, c)
		}
	}
	return nil
}

func (p *parser) requires(body string) error {
	for i, t := range strings.Split(body, "\n") {
		f := strings.Fields(t)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || f[0] != "command" {
			return p.errorf(p.blockAt+1+i, "a requirement is `command NAME` (an executable on $PATH), not %q", strings.TrimSpace(t))
		}
		p.l.Requires = append(p.l.Requires, Requirement{Kind: f[0], Arg: f[1]})
	}
	return nil
}

func (p *parser) finish() error {
	if p.fence != "" {
		return p.errorf(p.blockAt, "the ```%s block is not closed", p.fence)
	}
	p.flushText()
	if p.l.Title == "" {
		return fmt.Errorf("learn: %s: empty: a lesson starts with # TITLE", p.name)
	}
	if len(p.l.Steps) == 0 {
		return fmt.Errorf("learn: %s: no steps (## …)", p.name)
	}
	for _, s := range p.l.Steps {
		if len(s.Checks) == 0 || len(s.Solution) == 0 {
			return p.errorf(s.Line, "step %q needs a ```solution and a ```check (the step is judged by its checks, and --check runs its solution)", s.Title)
		}
	}
	return nil
}

// solutionLines reads the lines of a solution or setup block; `! LINE`
// is a line the shell must refuse.
func solutionLines(body string) []Line {
	var out []Line
	for _, t := range strings.Split(body, "\n") {
		if t = strings.TrimSpace(t); t == "" {
			continue
		}
		refused := strings.HasPrefix(t, "!")
		out = append(out, Line{Text: strings.TrimSpace(strings.TrimPrefix(t, "!")), Refused: refused})
	}
	return out
}
