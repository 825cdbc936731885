package shell

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// command is one verb of the shell language.
type command struct {
	name    string
	aliases []string
	usage   string // synopsis, e.g. "modify QP STATE [ATTR=VALUE...] [--force]"
	summary string // one line for `help`
	help    string // the rest: what it does, why, and examples
	flags   []flagSpec
	// pos names what each positional word is, for completion.
	pos []argKind
	// keys lists the attributes the command takes, for completion and for
	// "did you mean" (it may depend on what is already on the line).
	keys func(s *Shell, pos []string) []keySpec
	run  func(ctx context.Context, s *Shell, a *args) (Result, error)
}

type flagSpec struct{ name, help string }

// keySpec is one ATTR= a command takes.
type keySpec struct {
	name   string
	help   string
	values func(s *Shell) []Suggestion // nil: free-form
}

func (c *command) hasFlag(n string) bool { return contains(c.flagNames(), n) }

func (c *command) flagNames() []string {
	var out []string
	for _, f := range c.flags {
		out = append(out, f.name)
	}
	return out
}

// commands is the registry; init() functions of the cmd_*.go files add
// to it, so each command's code and help live together.
var commands = map[string]*command{}

func register(c *command) {
	for _, n := range append([]string{c.name}, c.aliases...) {
		if commands[n] != nil {
			panic("shell: command registered twice: " + n)
		}
		commands[n] = c
	}
}

func lookupCommand(name string) *command { return commands[strings.ToLower(name)] }

// commandList is every command once, sorted by name.
func commandList() []*command {
	seen := map[*command]bool{}
	var out []*command
	for _, c := range commands {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// Exec runs one command (no ';'; see Split) and returns its result. It
// never panics on any input: a refused command is an *Error that says
// what to do.
func (s *Shell) Exec(ctx context.Context, line string) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{What: fmt.Sprintf("internal error running %q: %v", line, r),
				Fix: "this is a verbscope bug; please report it with the line that caused it"}
		}
	}()
	toks, err := tokenize(line, false)
	if err != nil {
		return Result{}, &Error{What: err.Error()}
	}
	if len(toks) == 0 {
		return Result{Command: line}, nil
	}
	cmd := lookupCommand(toks[0].text)
	if cmd == nil {
		what := fmt.Sprintf("unknown command %q", toks[0].text)
		if s := suggest(strings.ToLower(toks[0].text), commandNames()); strings.HasPrefix(s, "; did you mean") {
			what += s
		}
		return Result{}, &Error{What: what, Fix: "`help` lists the commands"}
	}
	a, err := parseArgs(cmd, toks[1:])
	if err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	res, err = cmd.run(ctx, s, a)
	// Events the command caused (an access error, a CQ overrun) usually
	// arrive with it: show them right there.
	if cmd.name != "events" {
		for _, ev := range s.drainEvents() {
			note := "event: " + ev.text + ": " + ev.ev.Type.Meaning().What
			if err != nil {
				err = &Error{What: err.Error() + "\n" + note, Err: err}
			} else {
				res.Text = strings.TrimLeft(res.Text+"\n"+note, "\n")
			}
		}
	}
	s.prune()
	res.Command = line
	return res, err
}

// Split cuts a line into commands at ';' (outside quotes) and drops '#'
// comments, for front ends and scripts.
func Split(line string) []string { return splitCommands(line) }

func commandNames() []string {
	var out []string
	for n := range commands {
		out = append(out, n)
	}
	return out
}
