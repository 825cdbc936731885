package shell

import (
	"context"
	"errors"
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

// Exec runs one command (a front.Line's Text: no ';') and returns its
// result. It never panics on any input: a refused command is an *Error
// that says what to do. Cancelling ctx (or Close) cancels the command,
// including a wait for a peer or a completion. Commands run one at a
// time; State and Complete answer while one runs.
func (s *Shell) Exec(ctx context.Context, line string) (res Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &Error{What: fmt.Sprintf("internal error running %q: %v", line, r),
				Fix: "this is a verbscope bug; please report it with the line that caused it"}
		}
	}()
	toks, err := tokenize(line, false)
	if err != nil {
		return Result{}, err
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
	s.execMu.Lock()
	defer s.execMu.Unlock()
	if s.closed {
		return Result{}, &Error{What: "the session is closed", Why: "Close destroyed its objects", Fix: "start a new session"}
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cancelMu.Lock()
	s.cancel = cancel
	s.cancelMu.Unlock()
	defer func() {
		s.cancelMu.Lock()
		s.cancel = nil
		s.cancelMu.Unlock()
	}()
	s.setRunning(line)
	res, err = s.runLocked(cctx, cmd, a)
	res.Command = line
	return res, err
}

// runLocked runs a parsed command under the session lock, adds the async
// events that arrived meanwhile to its outcome (an access error or a CQ
// overrun usually arrives with the command that caused it), and publishes
// what it changed, also when the command panics.
func (s *Shell) runLocked(ctx context.Context, cmd *command, a *args) (res Result, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.publish("")
	res, err = cmd.run(ctx, s, a)
	if cmd.name == "events" {
		s.takeUnseen()
		return res, err
	}
	for _, ev := range s.takeUnseen() {
		note := "event: " + ev.text + ": " + ev.ev.Type.Meaning().What
		var se *Error
		switch {
		case errors.As(err, &se):
			e := *se
			e.Why = strings.TrimLeft(e.Why+"\n"+note, "\n")
			err = &e
		case err != nil:
			err = &Error{What: err.Error(), Why: note, Err: err}
		default:
			res.Text = strings.TrimLeft(res.Text+"\n"+note, "\n")
		}
	}
	return res, err
}

// waitUnlocked runs a wait (on the network, a CQ, a channel) without the
// session lock, so Complete and State answer while it waits; the progress
// line says what it waits for, and is sent once the lock is free (a front
// end that sees it can complete at once). wait must not touch the
// session's maps; the objects it uses stay alive, since commands run one
// at a time and Close waits for the running one.
func (s *Shell) waitUnlocked(object, progress string, wait func()) {
	s.mu.Unlock()
	defer s.mu.Lock()
	if progress != "" {
		s.progress(object, "%s", progress)
	}
	wait()
}

func commandNames() []string {
	var out []string
	for n := range commands {
		out = append(out, n)
	}
	return out
}
