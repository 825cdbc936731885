package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"golang.org/x/term"

	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/lab"
	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/ui"
)

func init() { register(dashCmd) }

func dashCmd() *Command {
	return &Command{
		Name:    "dash",
		Summary: "the dashboard: devices, ports, GIDs, IRQs, counters and every process's QPs live, with the verbs shell in a pane",
		Usage:   "[--interval D] [--theme NAME] [--dev DEVICE] [--gid-index N] [--view NAME] [--no-shell] [--demo] [--prometheus URL]",
		Help: `The inspector as a full-screen dashboard (also what 'verbscope' alone
opens on a terminal). Views, one at a time: qp cq mr pd ctx srq cm_id
(every process's objects, as 'rdma resource show' sees them), dev port
gid irq counters (sysfs and procfs), events (what appeared, vanished,
changed state or got stuck), doctor (the checklist) and fleet (every
host a Prometheus scrapes verbscope export on: --prometheus URL). ':' and a view
name jump, '/' filters (state=ERR pid=4242 type=RC, or plain words),
enter opens the selection, tab focuses the verbs shell pane, '?' lists
every key, q quits. Every object the pane's shell created is destroyed
on the way out, QPs first.

Themes: auto (dark or light by the terminal), dark, light, high-contrast,
mono, or a file NAME.theme in $XDG_CONFIG_HOME/verbscope/themes (the
format is in 'go doc github.com/verbscope/verbscope/themes.File'). With
NO_COLOR set, no colours at all; bold and reverse stay.

--demo starts a small labelled workload beside the dashboard, so a new
lab shows something alive: an ibv_rc_pingpong pair in a loop on the
device, and one QP left in ERR by a verbs shell. It ends with the
dashboard. 'make run' turns it on inside the lab VM (make run DEMO=0
leaves it out).

The dashboard needs a terminal; without one, the same data is in
'verbscope res', 'devices', 'ports', 'gids', 'irqs' and 'counters' (-j
for scripts).

Examples:
  verbscope dash
  verbscope dash --interval 500ms --theme high-contrast --view dev
  NO_COLOR=1 verbscope dash --dev rxe0
  verbscope lab -i -- 'verbscope dash --dev $LAB_DEV --gid-index $LAB_GID_INDEX --demo'
  verbscope dash --prometheus http://prometheus:9090 --view fleet`,
		Setup: func(fs *flag.FlagSet, env *Env) func(context.Context, []string) error {
			interval := fs.Duration("interval", time.Second, "refresh every `duration` (+ and - change it live)")
			theme := fs.String("theme", "auto", "colour `theme`: auto, dark, light, high-contrast, mono or a user theme")
			dev := fs.String("dev", "", "show only this `device` (default all); also the shell's default")
			gidIndex := fs.Int("gid-index", 0, "the shell's source GID `index` for RoCE (0: the RoCE v2 GID of an IPv4 address); also the demo's")
			first := fs.String("view", "qp", "the `view` shown first")
			noShell := fs.Bool("no-shell", false, "leave out the verbs shell pane")
			demo := fs.Bool("demo", false, "run the demo workload beside the dashboard (lab)")
			ascii := fs.Bool("ascii", false, "draw with ASCII only")
			prom := fs.String("prometheus", "", "the fleet view asks this Prometheus `URL` for every host running verbscope export")
			job := fs.String("job", "verbscope", "with --prometheus: the scrape `job` of the exporters")
			return func(ctx context.Context, args []string) error {
				if len(args) > 0 {
					return usageErrorf("dash takes no arguments, got %q", strings.Join(args, " "))
				}
				if *interval < 100*time.Millisecond {
					return usageErrorf("--interval %s: give at least 100ms", *interval)
				}
				if *gidIndex < 0 {
					return usageErrorf("--gid-index %d: an index into the port's GID table is 0 or more", *gidIndex)
				}
				return runDash(ctx, env, dashOptions{interval: *interval, theme: *theme, dev: *dev, gidIndex: *gidIndex, view: *first,
					shell: !*noShell, demo: *demo, ascii: *ascii, prometheus: *prom, job: *job})
			}
		},
	}
}

type dashOptions struct {
	interval    time.Duration
	theme, dev  string
	gidIndex    int
	view        string
	shell, demo bool
	ascii       bool
	// prometheus and job feed the fleet view.
	prometheus, job string
}

// dashMemoryLimit is the dashboard's soft heap limit (GOMEMLIMIT
// overrides it). With 10,000 QPs of another process shown the heap holds
// ~28 MB; at 32 MiB the collector runs more often during a refresh (in
// the lab guest a key's round trip went from 0.5 to 0.7 s) and RSS stays
// near 46 MB instead of 54.
const dashMemoryLimit = 32 << 20

// dashFPS is the most frames a second the dashboard draws. Bubble Tea's
// renderer wakes at this rate even when nothing changed; 30 keeps a key's
// echo within a frame a person does not notice and halves the idle
// wake-ups of the default 60.
const dashFPS = 30

// errNoTerminal is the dashboard asked for without a terminal.
var errNoTerminal = errors.New(`the dashboard needs a terminal, and this is not one
  the same data, for scripts: verbscope res [qp|cq|mr|pd|ctx|srq|cm_id], devices, ports, gids, irqs, counters (-j for JSON)`)

// onTerminal reports whether both stdin and stdout are a terminal.
func onTerminal(env *Env) bool {
	in, ok1 := env.Stdin.(*os.File)
	out, ok2 := env.Stdout.(*os.File)
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}

func runDash(ctx context.Context, env *Env, o dashOptions) error {
	if !onTerminal(env) {
		return errNoTerminal
	}
	in, out := env.Stdin.(*os.File), env.Stdout.(*os.File)
	noColor := themes.NoColor(os.Getenv)
	topts := themes.Options{Dark: true, NoColor: noColor, ASCII: o.ascii || !utf8Locale()}
	th, err := themes.Load(o.theme, topts)
	if err != nil {
		return usageErrorf("%s", strings.TrimPrefix(err.Error(), "themes: "))
	}
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return err
	}
	conn, err := inspect.Dial()
	if errors.Is(err, inspect.ErrNoRDMA) {
		return noRDMA(ctx, env, fsys, err)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	if o.view != "" && !ui.IsView(o.view) {
		return usageErrorf("--view %q: views are %s", o.view, strings.Join(ui.ViewNames(), " "))
	}
	src, stop := dashSources(ctx, fsys, conn, o)
	defer stop()
	var sh *shell.Shell
	if o.shell {
		sh = shell.New(shell.Options{Device: o.dev, GIDIndex: o.gidIndex})
		defer sh.Close()
		src.Shell = sh
		src.History, _ = front.LoadHistory(front.HistoryPath(), front.DefaultHistory)
		src.SaveHistory = func(h *front.History) error { return h.Save(front.HistoryPath()) }
	}
	if o.demo {
		label, stop, err := lab.StartDemo(ctx, lab.DemoOptions{Dev: o.dev, GIDIndex: o.gidIndex})
		if err != nil {
			return err
		}
		defer stop()
		src.Demo = label
	}
	if o.prometheus != "" {
		c := &fleet.Client{URL: strings.TrimRight(o.prometheus, "/")}
		src.Fleet = func(ctx context.Context) ([]fleet.Host, error) { return fleet.Rows(ctx, c, o.job) }
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// A viewer left open for days: keep the heap near what the data
		// needs rather than twice the peak.
		debug.SetMemoryLimit(dashMemoryLimit)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		adaptProcs(ctx)
	}
	// VERBSCOPE_DASH_FRAME names a file that gets each frame as text:
	// the render tests compare it with what the terminal shows.
	m := ui.New(src, ui.Options{Theme: o.theme, ThemeOpts: topts, View: o.view, FrameFile: os.Getenv("VERBSCOPE_DASH_FRAME")}, th)
	// SIGINT and SIGTERM cancel ctx (cli.Main), which ends the program
	// with status 130. Bubble Tea's own handler would race it, turning a
	// SIGTERM into a plain quit (status 0) when it wins.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out), tea.WithFPS(dashFPS), tea.WithoutSignalHandler()}
	if noColor {
		// Attributes (bold, reverse) stay; colours go.
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err = tea.NewProgram(m, opts...).Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// utf8Locale tells whether the terminal's locale draws box characters.
func utf8Locale() bool {
	for _, v := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if s := os.Getenv(v); s != "" {
			s = strings.ToLower(s)
			return strings.Contains(s, "utf-8") || strings.Contains(s, "utf8")
		}
	}
	return false
}
