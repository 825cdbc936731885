package rec

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/live"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
	"github.com/verbscope/verbscope/trace"
	"github.com/verbscope/verbscope/view"
)

// RecordOptions are `verbscope record`'s: what Record reads, how
// often, into which file, and how it stops.
type RecordOptions struct {
	// Path is the recording's file; "": verbscope-HOST-TIME.vsrec in
	// the working directory.
	Path string
	// Interval is the pause between readings; For, when above 0,
	// stops the recording after that long.
	Interval, For time.Duration
	// Dev records that device alone ("": all).
	Dev string
	// Trace traces every process's QP modifies, so that transitions
	// carry what each set, with TraceEnv's facts for the check of a
	// failed one (live.TraceOptions.Env).
	Trace    bool
	TraceEnv trace.EnvFunc
	// LoadLimits reads the devices' object limits
	// (live.Options.LoadLimits), which live does not read itself.
	LoadLimits func() map[string]inspect.Limits
	// Writer tunes the file; Record sets its Peers from Peers, the
	// diagnosis's (--peers ...), for the verdicts a recording keeps.
	Writer WriterOptions
	Peers  diagnose.PeerConfig
	// Version is the verbscope that records (Host.Version).
	Version string
	// Again, when set, says when to cut the last reading short: given
	// the context whose end stops the recording, it returns a channel
	// closed by what comes after that end (a second ctrl+c or SIGTERM),
	// and a func that lets go of it. Nil: lastWait bounds the last
	// reading alone.
	Again func(stopping context.Context) (quit <-chan struct{}, release func())
	// Log hears, a line at a time, where Record records, what goes
	// wrong as it does (a reading that failed, trace) and, at the end,
	// how much it recorded; nil: io.Discard.
	Log io.Writer
}

// Record records this host until ctx ends or o.For passes, then takes
// one last reading (Run) that o.Again can cut short. A stop is a
// normal end (nil).
func Record(ctx context.Context, o RecordOptions) error {
	if o.Log == nil {
		o.Log = io.Discard
	}
	fsys, err := sysfsmon.NewDefaultFS()
	if err != nil {
		return err
	}
	conn, err := inspect.Dial()
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer conn.Close()
	w, err := o.create(ctx, fsys)
	if err != nil {
		return err
	}
	defer w.Close()
	if o.For > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.For)
		defer cancel()
	}
	o.sayStart()
	run := RunOptions{Warn: func(s string) { fmt.Fprintln(o.Log, "record: "+s) }}
	readings := 0
	run.Written = func(source string, _ time.Time) {
		if source == "res" {
			readings++
		}
	}
	stopping := context.AfterFunc(ctx, func() {
		fmt.Fprintln(o.Log, "record: stopping after one last reading (ctrl+c stops at once)")
	})
	defer stopping()
	if o.Again != nil {
		quit, release := o.Again(ctx)
		defer release()
		run.Quit = quit
	}
	// The readers outlive ctx by the last reading (Run).
	readers, err := live.Start(context.WithoutCancel(ctx), o.readers(conn, fsys, run.Warn))
	if err != nil {
		return err
	}
	defer readers.Close()
	err = Run(ctx, readers, w, run)
	readers.Close()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(o.Log, "record: %d readings of the objects in %s (verbscope record info %s)\n", readings, o.Path, o.Path)
	return nil
}

// create makes the recording's file, named for this host and the time
// unless o.Path names it (o.Path is set to it), with the diagnosis's
// peers.
func (o *RecordOptions) create(ctx context.Context, fsys *sysfsmon.FS) (*Writer, error) {
	host := HostHere(fsys, o.Interval, o.Version)
	if o.Path == "" {
		o.Path = fmt.Sprintf("verbscope-%s-%s.vsrec", host.Hostname, time.Now().Format("20060102T150405"))
	}
	peers, err := diagnose.NewHTTPPeers(o.Peers)
	if err != nil {
		return nil, err
	}
	o.Writer.Peers = peers
	return Create(ctx, o.Path, host, o.Writer)
}

// sayStart says where the recording goes, how often and how big it
// may grow, and why the verbs shells' sessions are not in it if they
// cannot be.
func (o *RecordOptions) sayStart() {
	bound := "no bound on its size"
	if o.Writer.MaxSize > 0 {
		bound = "at most " + view.Bytes(o.Writer.MaxSize).String() + ", the oldest readings dropped past it (--max-size)"
	}
	fmt.Fprintf(o.Log, "record: recording to %s every %s, %s (ctrl+c stops)\n", o.Path, o.Interval, bound)
	if d := o.Writer.Sessions; d != "" {
		if err := transcript.CheckDir(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintf(o.Log, "record: the verbs shells' sessions are not recorded: %v\n", err)
		}
	}
}

// readers are the readers a recording takes: the objects, with
// trace's modifies if o.Trace, and the devices with their counters and
// IRQs. What trace says goes to warn.
func (o *RecordOptions) readers(conn *inspect.Conn, fsys *sysfsmon.FS, warn func(string)) live.Options {
	lo := live.Options{Interval: o.Interval, Netlink: true, Conn: conn,
		Snapshot:   inspect.SnapshotOptions{Query: inspect.Query{Dev: o.Dev}},
		LoadLimits: o.LoadLimits,
		FS:         fsys, Sysfs: true}
	if o.Trace {
		warn := func(s string) { warn("trace: " + s) }
		lo.Trace = &live.TraceOptions{Env: o.TraceEnv, Warn: warn, Ready: func(n int) {
			warn(fmt.Sprintf("%d programs attached: transitions carry what each modify set", n))
		}}
	}
	return lo
}
