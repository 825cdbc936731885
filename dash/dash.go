package dash

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/learn"
	"github.com/verbscope/verbscope/shell"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/themes"
	"github.com/verbscope/verbscope/ui"
)

// Options are the dashboard's settings, from the command line.
type Options struct {
	// In and Out are the terminal.
	In, Out *os.File
	// Interval is the refresh interval the readers start with.
	Interval time.Duration
	// Theme names the colour theme; ASCII draws without box characters.
	Theme string
	ASCII bool
	// Dev limits the views to one device; it is also the shell's.
	Dev string
	// View is the view shown first.
	View string
	// Shell puts the verbs shell in a pane; GIDIndex is its default GID.
	Shell    bool
	GIDIndex int
	// Course, when set, is the course (verbscope learn) the pane runs
	// instead of a plain shell, with the lesson pane beside it.
	Course *learn.Tutor
	// Prometheus, when set, feeds the fleet view with the hosts its
	// scrape Job finds.
	Prometheus, Job string
	// Peers says which exporters the diagnosis asks of a stuck QP's
	// other end (--peers, --peer-auth, --peer-ca; Prometheus is the
	// fleet's); checked by the command, used by the diagnosis's view.
	Peers diagnose.PeerConfig
	// FrameFile receives each frame as text (ui.Options.FrameFile).
	FrameFile string
	// Window is how far back the Tracker looks for growing objects
	// (inspect.TrackerConfig.GrowthWindow; 0: its default).
	Window time.Duration
	// Trace feeds the QP histories with trace's modify events (what each
	// ibv_modify_qp set); what trace cannot do goes to the status line.
	Trace bool
	// Rewind, when set, keeps the live readings of the last Rewind in a
	// recording in the temporary directory, which `[` plays back in the
	// live dashboard (twin mode); 0 keeps nothing.
	Rewind time.Duration
	// Replay, when set, plays this recording (verbscope record) instead
	// of reading the system, from At (rec.ParseAt: start, end, -3m,
	// 09:24:05).
	Replay, At string
	// Demo, when set, starts a labelled workload beside the dashboard;
	// stop ends it.
	Demo func(ctx context.Context, dev string) (label string, stop func(), err error)
}

// ErrBadOption marks an option Run refuses (an unknown theme or view):
// the caller's usage mistake.
var ErrBadOption = errors.New("bad option")

// NoRDMAError is Run's error on a host without RDMA (inspect.ErrNoRDMA
// underneath); FS is the sysfs it read, for the caller to explain why.
type NoRDMAError struct {
	FS  *sysfsmon.FS
	Err error
}

func (e *NoRDMAError) Error() string { return e.Err.Error() }
func (e *NoRDMAError) Unwrap() error { return e.Err }

// Run runs the dashboard until the user quits or ctx ends (then it
// returns ctx's error).
func Run(ctx context.Context, o Options) error {
	noColor := themes.NoColor(os.Getenv)
	topts := themes.Options{Dark: true, NoColor: noColor, ASCII: o.ASCII || !utf8Locale()}
	th, err := themes.Load(o.Theme, topts)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBadOption, strings.TrimPrefix(err.Error(), "themes: "))
	}
	if o.View != "" && !ui.IsView(o.View) {
		return fmt.Errorf("%w: --view %q: views are %s", ErrBadOption, o.View, strings.Join(ui.ViewNames(), " "))
	}
	if o.Replay != "" {
		src, stop, err := replaySources(ctx, o.Replay, o.At)
		if err != nil {
			return err
		}
		defer stop()
		return program(ctx, o, ui.New(src, ui.Options{Theme: o.Theme, ThemeOpts: topts, View: o.View, FrameFile: o.FrameFile}, th), noColor)
	}
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return err
	}
	conn, err := inspect.Dial()
	if errors.Is(err, inspect.ErrNoRDMA) {
		return &NoRDMAError{FS: fsys, Err: err}
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	src, stop, err := sources(ctx, fsys, conn, o)
	if err != nil {
		return err
	}
	defer stop()
	defer shellSources(ctx, conn, o, &src)()
	// The shell pane's one rule: it shows this process's shell (or the
	// course's). A live dashboard without one (--no-shell) has no pane,
	// even while it rewinds: the rewinder's recorded lines would be the
	// shell's that is not there. (A replay of a file shows the shells it
	// recorded: replay.go.)
	if src.Shell == nil {
		src.ReplayShell = nil
	} else {
		src.History, _ = front.LoadHistory(front.HistoryPath(), front.DefaultHistory)
		src.SaveHistory = func(h *front.History) error { return h.Save(front.HistoryPath()) }
	}
	if o.Demo != nil {
		label, stop, err := o.Demo(ctx, o.Dev)
		if err != nil {
			return err
		}
		defer stop()
		src.Demo = label
	}
	if o.Prometheus != "" {
		c := &fleet.Client{URL: strings.TrimRight(o.Prometheus, "/")}
		src.Fleet = func(ctx context.Context) ([]fleet.Host, error) { return fleet.Rows(ctx, c, o.Job) }
	}
	return program(ctx, o, ui.New(src, ui.Options{Theme: o.Theme, ThemeOpts: topts, View: o.View, FrameFile: o.FrameFile}, th), noColor)
}

// shellSources gives the dashboard its shell: the course's (--course),
// or a verbs shell of its own with :learn starting the course; none
// with --no-shell. The function it returns closes what it opened.
func shellSources(ctx context.Context, conn *inspect.Conn, o Options, src *ui.Sources) (closeAll func()) {
	if o.Course != nil {
		src.Shell, src.Lesson = o.Course, func() ui.Lesson { return lessonOf(o.Course.Status()) }
		return func() {}
	}
	if !o.Shell {
		return func() {}
	}
	sh := transcript.Wrap(shell.New(shell.Options{Device: o.Dev, GIDIndex: o.GIDIndex}), "dash")
	src.Shell = sh
	// :learn starts the course in a Cmd; it is closed at the end.
	var course atomic.Pointer[learn.Tutor]
	src.Learn = func() (front.Engine, func() ui.Lesson, error) {
		t, err := startCourse(ctx, conn, o)
		if err != nil {
			return nil, nil, err
		}
		if old := course.Swap(t); old != nil {
			old.Close()
		}
		return t, func() ui.Lesson { return lessonOf(t.Status()) }, nil
	}
	return func() {
		if t := course.Load(); t != nil {
			t.Close()
		}
		sh.Close()
	}
}

// program runs the dashboard's model on the terminal until the user
// quits or ctx ends.
func program(ctx context.Context, o Options, m tea.Model, noColor bool) error {
	applyMemoryLimit(ctx)
	// SIGINT and SIGTERM cancel ctx (the caller's), which ends the
	// program with ctx's error. Bubble Tea's own handler would race it,
	// turning a SIGTERM into a plain quit (status 0) when it wins.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(o.In), tea.WithOutput(o.Out), tea.WithFPS(FPS), tea.WithoutSignalHandler()}
	if noColor {
		// Attributes (bold, reverse) stay; colours go.
		opts = append(opts, tea.WithColorProfile(colorprofile.Ascii))
	}
	_, err := tea.NewProgram(m, opts...).Run()
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
