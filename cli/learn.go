package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/verbscope/verbscope/dash"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/line"
)

func init() { register("learn", learnCmd) }

func learnCmd() *command {
	return &command{
		Name:          "learn",
		FlagsAnywhere: true,
		Summary:       "the course: the verbs call flow and the QP state machine, learned by doing, each step checked on the kernel",
		Usage:         "[N] [--plain] [--dir DIR [--allow-programs]] [--reset] [--dev DEVICE] | --check [DIR [--allow-programs]]",
		Help:          helpText("learn"),
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			check := fs.Bool("check", false, "run every lesson's solution and report each step")
			dir := fs.String("dir", "", "run the lessons in `directory` instead of the built-in course")
			plain := fs.Bool("plain", false, "run the course in the line shell")
			reset := fs.Bool("reset", false, "clear saved progress first")
			dev := fs.String("dev", "", "the `device` lessons open (default the first device)")
			allowProgs := fs.Bool("allow-programs", false, "let a pack's lessons run the programs they list (read them first)")
			gidIndex := fs.Int("gid-index", 0, "source GID `index` of RoCE address vectors (0: the RoCE v2 GID of an IPv4 address on the port)")
			return func(ctx context.Context, args []string) error {
				lo := learnOptions{check: *check, dir: *dir, plain: *plain, reset: *reset, allowProgs: *allowProgs,
					shell: shell.Options{Device: *dev, GIDIndex: *gidIndex}}
				if err := lo.args(args); err != nil {
					return err
				}
				return lo.run(ctx, env)
			}
		},
	}
}

// checkSettle is how long --check judges a step again: the device
// reports some outcomes (an overrun's async event) after the command.
const checkSettle = 10 * time.Second

type learnOptions struct {
	check, plain, reset bool
	allowProgs          bool // a pack's background programs may run
	dir                 string
	start               int
	shell               shell.Options
}

// args reads the one argument: a lesson number, or with --check a pack.
func (lo *learnOptions) args(args []string) error {
	if len(args) > 1 {
		return usageErrorf("unexpected argument %q", args[1])
	}
	if len(args) == 0 {
		return nil
	}
	n, err := strconv.Atoi(args[0])
	switch {
	case err == nil && n > 0 && !lo.check:
		lo.start = n
	case err == nil && lo.check:
		return usageErrorf("--check runs every lesson; it takes a pack's directory, not a lesson number")
	case lo.check && lo.dir == "":
		lo.dir = args[0]
	default:
		return usageErrorf("%q is not a lesson number", args[0])
	}
	return nil
}

func (lo *learnOptions) run(ctx context.Context, env *Env) error {
	lessons, err := learn.Course()
	progress := learn.ProgressPath()
	if lo.dir != "" {
		lessons, err = learn.LoadDir(lo.dir)
		progress = learn.PackProgressPath(lo.dir)
	}
	if err != nil {
		return err
	}
	lessons = learn.Expand(lessons, learn.HostVars(lo.shell.Device, lo.shell.GIDIndex))
	if err := lo.allowPrograms(lessons, terminalAsker(env)); err != nil {
		return err
	}
	if lo.reset {
		if err := learn.ResetProgress(progress); err != nil {
			return err
		}
		fmt.Fprintln(env.Stderr, "verbscope learn: progress cleared")
	}
	conn, err := inspect.Dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	kernel := learn.Netlink{Conn: conn}
	newEngine := func() front.Engine { return shell.New(lo.shell) }
	if lo.check {
		err := learn.RunCheck(ctx, lessons, learn.CheckOptions{NewEngine: newEngine, Kernel: kernel, Out: env.Stdout,
			Settle: checkSettle, AllowPrograms: lo.allowProgs})
		var ce *learn.CheckError
		if errors.As(err, &ce) {
			fmt.Fprintln(env.Stderr, err)
			return exitError{Code: 1}
		}
		return err
	}
	dashboard := !lo.plain && onTerminal(env)
	tutor, opening, err := learn.NewTutor(ctx, learn.TutorOptions{Lessons: lessons, NewEngine: newEngine,
		Kernel: kernel, ProgressPath: progress, Start: lo.start, Brief: dashboard, AllowPrograms: lo.allowProgs})
	if err != nil {
		return err
	}
	defer tutor.Close()
	if dashboard {
		// The lesson in its pane beside the shell, the QP view above.
		return runDash(ctx, env, dash.Options{Course: tutor, View: "qp", Interval: time.Second,
			Dev: lo.shell.Device, GIDIndex: lo.shell.GIDIndex}, false, false)
	}
	fmt.Fprintln(env.Stdout, opening)
	// The line shell: the prompt on a terminal, stdin's lines otherwise;
	// a refused command is part of the lesson (Course).
	return lineStatus(line.Run(ctx, line.Options{Open: func(string) front.Engine { return tutor },
		In: env.Stdin, Out: env.Stdout, Err: env.Stderr, Course: true}))
}
