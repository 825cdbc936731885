package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"

	prompt "github.com/elk-language/go-prompt"
	pstrings "github.com/elk-language/go-prompt/strings"
	"golang.org/x/term"

	"github.com/verbscope/verbscope/shell"
)

// runPrompt is the interactive shell on go-prompt. go-prompt is used one
// line at a time (Input), never Run: Run calls os.Exit on SIGINT/SIGTERM,
// which would skip destroying the session's verbs objects. Here the
// signals cancel the session, the objects are destroyed in order and the
// terminal is restored before the process ends.
func runPrompt(sh *shell.Shell, in *os.File, env *Env) error {
	fd := int(in.Fd())
	saved, err := term.GetState(fd)
	if err != nil {
		return err
	}
	restore := func() { term.Restore(fd, saved) }
	defer restore()

	// SIGTERM or SIGHUP end the session. At the prompt (blocked reading
	// the terminal) the signal handler itself destroys the objects,
	// restores the terminal and exits; during a command it cancels the
	// command (every command runs under session), and the loop below
	// ends the session when the command returns. Ctrl-C only interrupts
	// the running command; at the prompt the terminal is raw and Ctrl-C
	// just clears the line.
	session, endSession := context.WithCancel(context.Background())
	defer endSession()
	var inCommand atomic.Bool
	const terminated = "\nverbscope shell: terminated; all verbs objects destroyed"
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	go func() {
		select {
		case <-sigs:
			endSession()
			if !inCommand.Load() {
				sh.Close()
				restore()
				fmt.Fprintln(env.Stderr, terminated)
				os.Exit(143)
			}
		case <-session.Done():
		}
	}()

	histFile := historyPath()
	history := loadHistory(histFile)
	p := prompt.New(prompt.NoopExecutor,
		prompt.WithPrefix("verbs> "),
		prompt.WithCompleter(completer(sh)),
		prompt.WithHistory(history),
		prompt.WithMaxSuggestion(12),
		prompt.WithTitle("verbscope shell"),
	)
	fmt.Fprintln(env.Stdout, "verbscope verbs shell. 'help' lists the commands, Tab completes, Ctrl-D or 'exit' leaves.")
	for {
		line := p.Input()
		if line == "" && p.Buffer().Document().LastKeyStroke() == prompt.ControlD {
			fmt.Fprintln(env.Stdout)
			return nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		appendHistory(histFile, line)
		for _, cmd := range shell.Split(line) {
			if isExit(cmd) {
				return nil
			}
			inCommand.Store(true)
			cmdCtx, stop := signal.NotifyContext(session, os.Interrupt)
			res, err := sh.Exec(cmdCtx, cmd)
			interrupted := cmdCtx.Err() != nil
			stop()
			inCommand.Store(false)
			if session.Err() != nil {
				// The caller's deferred Close destroys the objects.
				fmt.Fprintln(env.Stderr, terminated)
				return ExitError{Code: 143}
			}
			if err != nil {
				if interrupted {
					fmt.Fprintln(env.Stderr, "interrupted")
				} else {
					fmt.Fprintf(env.Stderr, "%v\n", err)
				}
				break
			}
			if res.Text != "" {
				fmt.Fprintln(env.Stdout, res.Text)
			}
		}
	}
}

// completer adapts shell.Complete to go-prompt, whose positions count runes.
func completer(sh *shell.Shell) prompt.Completer {
	return func(d prompt.Document) ([]prompt.Suggest, pstrings.RuneNumber, pstrings.RuneNumber) {
		text := d.TextBeforeCursor()
		c := sh.Complete(text, len(text))
		out := make([]prompt.Suggest, 0, len(c.Items))
		for _, it := range c.Items {
			out = append(out, prompt.Suggest{Text: it.Text, Description: it.Description})
		}
		start := pstrings.RuneNumber(len([]rune(text[:c.Start])))
		end := pstrings.RuneNumber(len([]rune(text[:c.End])))
		return out, start, end
	}
}

// historyPath is $XDG_STATE_HOME/verbscope/history (~/.local/state/…).
func historyPath() string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "verbscope", "history")
}

const historyKeep = 1000

func loadHistory(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > historyKeep {
		lines = lines[len(lines)-historyKeep:]
	}
	return lines
}

// appendHistory keeps the line for the next run; failing to is not worth
// interrupting the session for.
func appendHistory(path, line string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}
