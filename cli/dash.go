package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/verbscope/verbscope/dash"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/lab"
	"github.com/verbscope/verbscope/ui"
)

func init() { register("dash", dashCmd) }

func dashCmd() *command {
	return &command{
		Name:    "dash",
		Summary: "the dashboard: devices, ports, GIDs, IRQs, counters and every process's QPs live, with the verbs shell in a pane",
		Usage:   "[--interval D] [--theme NAME] [--dev DEVICE] [--gid-index N] [--view NAME] [--no-shell] [--no-trace] [--demo] [--prometheus URL] [--rewind D] [--replay FILE [--at TIME]]",
		// The views are listed here, not at init: only dash's help
		// pays for them.
		Help:  dashHelpViews + viewList() + dashHelp,
		Setup: dashSetup,
	}
}

// dashSetup declares the flags of `verbscope dash` and returns the
// command.
func dashSetup(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
	interval := fs.Duration("interval", time.Second, "refresh every `duration` (+ and - change it live)")
	theme := fs.String("theme", "auto", "colour `theme`: auto, dark, light, high-contrast, mono or a user theme")
	dev := fs.String("dev", "", "show only this `device` (default all); also the shell's default")
	gidIndex := fs.Int("gid-index", 0, "the shell's source GID `index` for RoCE (0: the RoCE v2 GID of an IPv4 address); also the demo's")
	first := fs.String("view", "overview", "the `view` shown first")
	noShell := fs.Bool("no-shell", false, "leave out the verbs shell pane")
	noTrace := fs.Bool("no-trace", false, "do not trace QP modifies with eBPF (histories then carry the states each refresh saw)")
	demo := fs.Bool("demo", false, "run the demo workload beside the dashboard (lab)")
	ascii := fs.Bool("ascii", false, "draw with ASCII only")
	prom := fs.String("prometheus", "", "the fleet view asks this Prometheus `URL` for every host running verbscope export")
	job := fs.String("job", "verbscope", "with --prometheus: the scrape `job` of the exporters")
	window := fs.Duration("window", inspect.DefaultGrowthWindow, "flag a process whose objects of a kind only grew over this `duration` (a leak suspect)")
	replay := fs.String("replay", "", "play this recording (verbscope record) instead of reading the host: `file`")
	at := fs.String("at", "", "with --replay: start at `time` (start, end, -3m, 09:24:05, 2026-12-01T09:24:05)")
	rewind := fs.Duration("rewind", dash.DefaultRewind, "keep the last `duration` of readings for [ to rewind into (0: none)")
	pf := addPeerFlags(fs, prom)
	return func(ctx context.Context, args []string) error {
		if len(args) > 0 {
			return usageErrorf("dash takes no arguments, got %q", strings.Join(args, " "))
		}
		if *interval < 100*time.Millisecond {
			return usageErrorf("--interval %s: give at least 100ms", *interval)
		}
		if *rewind < 0 {
			return usageErrorf("--rewind %s: give a duration of 0 or more", *rewind)
		}
		if *gidIndex < 0 {
			return usageErrorf("--gid-index %d: an index into the port's GID table is 0 or more", *gidIndex)
		}
		if *at != "" && *replay == "" {
			return usageErrorf("--at needs --replay FILE")
		}
		if *replay != "" {
			return runDash(ctx, env, dash.Options{Theme: *theme, View: *first, ASCII: *ascii, Replay: *replay, At: *at}, false, false)
		}
		if err := checkWindow(*window, *interval); err != nil {
			return err
		}
		peers, err := pf.config()
		if err != nil {
			return err
		}
		return runDash(ctx, env, dash.Options{Interval: *interval, Theme: *theme, Dev: *dev, GIDIndex: *gidIndex, View: *first,
			ASCII: *ascii, Prometheus: *prom, Job: *job, Shell: !*noShell, Window: *window, Rewind: *rewind, Peers: peers}, *demo, !*noTrace)
	}
}

// checkWindow refuses a growth window that holds fewer than four
// readings: a trend needs several.
func checkWindow(window, interval time.Duration) error {
	if window < 4*interval {
		return usageErrorf("--window %s: give at least 4 intervals (%s)", window, 4*interval)
	}
	return nil
}

// viewList is the dashboard's views for its help, one a line.
func viewList() string {
	var b strings.Builder
	for _, v := range ui.Views() {
		fmt.Fprintf(&b, "  %-9s %s\n", v.Name, v.About)
	}
	return b.String()
}

// errNoTerminal is the dashboard asked for without a terminal.
var errNoTerminal = errors.New(`the dashboard needs a terminal, and this is not one
  the same data, for scripts: verbscope res [qp|cq|mr|pd|ctx|srq|cm_id], devices, ports, gids, irqs, counters (-j for JSON)`)

// onTerminal reports whether both stdin and stdout are a terminal.
func onTerminal(env *Env) bool {
	in, ok1 := env.Stdin.(*os.File)
	out, ok2 := env.Stdout.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

// runDash hands the terminal to package dash; what it refuses is a
// usage mistake, and a host without RDMA gets doctor's explanation.
func runDash(ctx context.Context, env *Env, o dash.Options, demo, traced bool) error {
	if !onTerminal(env) {
		return errNoTerminal
	}
	o.In, o.Out = env.Stdin.(*os.File), env.Stdout.(*os.File)
	if demo {
		o.Demo = func(ctx context.Context, dev string) (string, func(), error) {
			return lab.StartDemo(ctx, lab.DemoOptions{Dev: dev, GIDIndex: o.GIDIndex})
		}
	}
	o.Trace = traced
	// VERBSCOPE_DASH_FRAME names a file that gets each frame as text:
	// the render tests compare it with what the terminal shows.
	o.FrameFile = os.Getenv("VERBSCOPE_DASH_FRAME")
	err := dash.Run(ctx, o)
	var no *dash.NoRDMAError
	switch {
	case errors.As(err, &no):
		return noRDMA(ctx, env, no.FS, no.Err)
	case errors.Is(err, dash.ErrBadOption):
		return usageErrorf("%s", strings.TrimPrefix(err.Error(), dash.ErrBadOption.Error()+": "))
	}
	return err
}

// dashHelpViews and dashHelp are the text of `verbscope dash --help`
// after the flags, before and after the list of views.
const dashHelpViews = `The inspector as a full-screen dashboard (also what 'verbscope' alone
opens on a terminal). Its views, one at a time:
`

var dashHelp = helpText("dash")
