package line

import (
	"context"
	"fmt"
	"io"
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
func runPrompt(sh front.Engine, in *os.File, out, errw io.Writer) error {
	fd := int(in.Fd())
	saved, err := term.GetState(fd)
	if err != nil {
		return err
	}
	restore := func() { term.Restore(fd, saved) }
	defer restore()

	session, endSession := context.WithCancel(context.Background())
	defer endSession()
	ps := &promptSession{sh: sh, session: session, out: out, errw: errw}
	stopWatch := ps.watchSignals(endSession, restore)
	defer stopWatch()

	histFile := front.HistoryPath()
	history, err := front.LoadHistory(histFile, front.DefaultHistory)
	if err != nil {
		fmt.Fprintf(errw, "verbscope shell: %v (starting with what could be read; this session's lines are not saved over the file)\n", err)
	}
	go printProgress(sh.Events(), &ps.inCommand, out)
	reader := newPasteReader(prompt.NewStdinReader())
	p := prompt.New(prompt.NoopExecutor,
		prompt.WithPrefix("verbs> "),
		prompt.WithCompleter(completer(sh)),
		prompt.WithHistory(history.Entries()),
		prompt.WithMaxSuggestion(12),
		prompt.WithTitle("verbscope shell"),
		prompt.WithReader(reader),
	)
	fmt.Fprintln(out, "verbscope verbs shell. 'help' lists the commands, Tab completes, Ctrl-D or 'exit' leaves.")
	for {
		reader.nextLine()
		line := p.Input()
		if line == "" && p.Buffer().Document().LastKeyStroke() == prompt.ControlD {
			fmt.Fprintln(out)
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
		if done, err := ps.runLine(line); done {
			return err
		}
	}
}

// promptSession is what the prompt's loop shares with its signal watch
// and its progress printer.
type promptSession struct {
	sh        front.Engine
	session   context.Context // ends on SIGTERM or SIGHUP
	inCommand atomic.Bool     // a command runs: the loop, not the watch, ends the session
	out, errw io.Writer
}

const terminated = "\nverbscope shell: terminated; all verbs objects destroyed"

// watchSignals lets SIGTERM or SIGHUP end the session. At the prompt
// (blocked reading the terminal) the handler itself destroys the
// objects, restores the terminal and exits; during a command it cancels
// the command (every command runs under session), and runLine ends the
// session when the command returns. Ctrl-C only interrupts the running
// command; at the prompt the terminal is raw and Ctrl-C just clears the
// line. The watch ends with the session; stop stops the signals.
func (ps *promptSession) watchSignals(endSession func(), restore func()) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case <-sigs:
			endSession()
			if !ps.inCommand.Load() {
				ps.sh.Close()
				restore()
				fmt.Fprintln(ps.errw, terminated)
				os.Exit(int(Terminated))
			}
		case <-ps.session.Done():
		}
	}()
	return func() { signal.Stop(sigs) }
}

// runLine runs the commands of one entered line, stopping at the first
// that fails; done says the prompt ends (exit, or the session ended), and
// err how.
func (ps *promptSession) runLine(line string) (done bool, err error) {
	for _, l := range front.Lines(line) {
		if l.Exit {
			return true, nil
		}
		ps.inCommand.Store(true)
		cmdCtx, stop := signal.NotifyContext(ps.session, os.Interrupt)
		res, err := ps.sh.Exec(cmdCtx, l.Text)
		interrupted := cmdCtx.Err() != nil
		stop()
		ps.inCommand.Store(false)
		if ps.session.Err() != nil {
			// Run's deferred Close destroys the objects.
			fmt.Fprintln(ps.errw, terminated)
			return true, Terminated
		}
		if err != nil {
			if interrupted {
				fmt.Fprintln(ps.errw, "interrupted")
			} else {
				fmt.Fprintf(ps.errw, "%v\n", err)
			}
			return false, nil
		}
		if res.Text != "" {
			fmt.Fprintln(ps.out, res.Text)
		}
	}
	return false, nil
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
