package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/verbscope/verbscope/view"
)

// command is one subcommand: `verbscope NAME [flags] [args]`.
type command struct {
	Name    string
	Summary string // one line for the command list
	Usage   string // argument synopsis after the name
	Help    string // paragraphs after the flags, examples included
	// FlagsAnywhere lets flags stand after the arguments too (the view
	// commands' grammar, words.go).
	FlagsAnywhere bool
	// Setup declares flags and returns the function that runs the command
	// once they are parsed.
	Setup func(fs *flag.FlagSet, env *Env) func(ctx context.Context, args []string) error
}

// Env is the outside world of a command, swapped in tests.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Version        string
}

// exitError ends the program with Code and prints nothing more: the
// command already said what happened (the lab passes on the guest's status).
type exitError struct{ Code int }

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// errUsage marks a mistake in the command line; the usage follows it.
var errUsage = errors.New("usage")

func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{errUsage}, args...)...)
}

// registry holds each subcommand's constructor by name; every command's
// file registers its own in init, so adding one touches no shared list.
// Running a command builds that one only: the others' help texts are
// work (filter lists, themes) that a one-shot `res` would pay at every
// start.
var registry = map[string]func() *command{}

func register(name string, c func() *command) { registry[name] = c }

// commands returns every subcommand, sorted by name.
func commands() []*command {
	cs := make([]*command, 0, len(registry))
	for _, c := range registry {
		cs = append(cs, c())
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
	return cs
}

func lookup(name string) *command {
	if c := registry[name]; c != nil {
		return c()
	}
	return nil
}

// Main runs verbscope with the given arguments (without the program name)
// and returns the process exit status. SIGINT and SIGTERM cancel the
// command's context, so every command gets to clean up.
func Main(args []string, env *Env) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, env)
}

func run(ctx context.Context, args []string, env *Env) int {
	if len(args) == 0 {
		if !onTerminal(env) {
			printOverview(env.Stdout)
			return 0
		}
		// On a terminal, verbscope alone is the dashboard.
		args = []string{"dash"}
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			printOverview(env.Stdout)
			return 0
		}
		c := lookup(rest[0])
		if c == nil {
			fmt.Fprintf(env.Stderr, "verbscope: no command %q; `verbscope help` lists them\n", rest[0])
			return 2
		}
		fs := newFlagSet(c, env)
		c.Setup(fs, env)
		printCommandHelp(env.Stdout, c, fs)
		return 0
	case "-version", "--version":
		name = "version"
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(env.Stderr, "verbscope: no command %q; `verbscope help` lists them\n", name)
		return 2
	}
	fs := newFlagSet(c, env)
	runFn := c.Setup(fs, env)
	words, err := parseFlags(c, fs, rest)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(env.Stdout, c, fs)
			return 0
		}
		return usage(env, c, err.Error())
	}
	err = runFn(ctx, words)
	var exit exitError
	var absent *view.AbsentError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		return exit.Code
	case errors.Is(err, errUsage):
		return usage(env, c, strings.TrimPrefix(err.Error(), "usage: "))
	case errors.As(err, &absent):
		// A device or port the words name that the host does not
		// have is a mistake in the command line, as a bad word is.
		return usage(env, c, absent.What)
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(env.Stderr, "verbscope %s: interrupted\n", c.Name)
		return 130
	default:
		fmt.Fprintf(env.Stderr, "verbscope %s: %v\n", c.Name, err)
		return 1
	}
}

// usage tells what is wrong with the command line, then its synopsis,
// and returns exit status 2.
func usage(env *Env, c *command, what string) int {
	fmt.Fprintf(env.Stderr, "verbscope %s: %s\n", c.Name, what)
	fmt.Fprintf(env.Stderr, "usage: verbscope %s %s (see `verbscope %s --help`)\n", c.Name, c.Usage, c.Name)
	return 2
}

// parseFlags parses the command's flags, wherever they stand when the
// command says so, and returns its arguments.
func parseFlags(c *command, fs *flag.FlagSet, args []string) ([]string, error) {
	if c.FlagsAnywhere {
		return parseInterspersed(fs, args)
	}
	err := fs.Parse(args)
	return fs.Args(), err
}

func newFlagSet(c *command, env *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(c.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are printed by run, help by printCommandHelp
	return fs
}

func printOverview(w io.Writer) {
	fmt.Fprint(w, `verbscope: explore, teach and debug RDMA verbs on Linux.

Usage: verbscope COMMAND [flags] [args]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-10s %s\n", c.Name, c.Summary)
	}
	fmt.Fprint(w, `
Run 'verbscope help COMMAND' or 'verbscope COMMAND --help' for details.
`)
}

func printCommandHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: verbscope %s %s\n\n%s\n", c.Name, c.Usage, c.Summary)
	// Flags with the same usage are one flag's short and long names
	// (-j, --json): one line.
	type entry struct{ names, usage string }
	var entries []entry
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(f.Name) == 1 || f.Name == "dd" { // -j, and -dd as iproute2 spells it; --at
			dash = "-"
		}
		spelled := dash + f.Name
		if name != "" {
			spelled += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
			usage += " (default " + f.DefValue + ")"
		}
		for i := range entries {
			if entries[i].usage == usage {
				entries[i].names += ", " + spelled
				return
			}
		}
		entries = append(entries, entry{spelled, usage})
	})
	var flags strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&flags, "%-24s %s\n", "  "+e.names, e.usage)
	}
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
	}
	if c.Help != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(c.Help))
	}
}
