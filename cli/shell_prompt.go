package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"

	prompt "github.com/elk-language/go-prompt"
	pstrings "github.com/elk-language/go-prompt/strings"
	"golang.org/x/term"

	"github.com/verbscope/verbscope/shell/front"
)

// runPrompt is the interactive shell on go-prompt. go-prompt is used one
// line at a time (Input), never Run: Run calls os.Exit on SIGINT/SIGTERM,
// which would skip destroying the session's verbs objects. Here the
// signals cancel the session, the objects are destroyed in order and the
// terminal is restored before the process ends.
func runPrompt(sh front.Engine, in *os.File, env *Env) error {
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

	histFile := front.HistoryPath()
	history, err := front.LoadHistory(histFile, front.DefaultHistory)
	if err != nil {
		fmt.Fprintf(env.Stderr, "verbscope shell: %v (starting with what could be read; this session's lines are not saved over the file)\n", err)
	}
	go printProgress(sh.Events(), &inCommand, env.Stdout)
	reader := newPasteReader(prompt.NewStdinReader())
	p := prompt.New(prompt.NoopExecutor,
		prompt.WithPrefix("verbs> "),
		prompt.WithCompleter(completer(sh)),
		prompt.WithHistory(history.Entries()),
		prompt.WithMaxSuggestion(12),
		prompt.WithTitle("verbscope shell"),
		prompt.WithReader(reader),
	)
	fmt.Fprintln(env.Stdout, "verbscope verbs shell. 'help' lists the commands, Tab completes, Ctrl-D or 'exit' leaves.")
	for {
		reader.nextLine()
		line := p.Input()
		if line == "" && p.Buffer().Document().LastKeyStroke() == prompt.ControlD {
			fmt.Fprintln(env.Stdout)
			return nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		history.Add(line)
		if histFile != "" {
			// Keeping the line for the next run is not worth
			// interrupting the session for.
			_ = history.Save(histFile)
		}
		for _, l := range front.Lines(line) {
			if l.Exit {
				return nil
			}
			inCommand.Store(true)
			cmdCtx, stop := signal.NotifyContext(session, os.Interrupt)
			res, err := sh.Exec(cmdCtx, l.Text)
			interrupted := cmdCtx.Err() != nil
			stop()
			inCommand.Store(false)
			if session.Err() != nil {
				// The caller's deferred Close destroys the objects.
				fmt.Fprintln(env.Stderr, terminated)
				return exitError{Code: 143}
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
func completer(sh front.Engine) prompt.Completer {
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
