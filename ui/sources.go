package ui

import (
	"context"
	"time"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/fleet"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/owners"
	"github.com/verbscope/verbscope/shell/front"
	"github.com/verbscope/verbscope/shell/transcript"
	"github.com/verbscope/verbscope/sysfsmon"
)

// Sources are what the dashboard shows and drives, wired in by dash:
// every channel is fed by a goroutine that is not the UI's, and every
// function that may wait is called from a tea.Cmd.
type Sources struct {
	Host HostInfo
	// Res delivers inspect's watch frames (every process's objects, the
	// Tracker's changes and QP histories).
	Res <-chan inspect.Frame
	// Sys delivers sysfsmon's readings (devices, ports, GIDs, counters
	// with rates, IRQs).
	Sys <-chan sysfsmon.Update
	// Owners looks a process up in /proc (live.Host.Owners), for the
	// owners view; it is called off the UI goroutine, once per process
	// of a frame whose objects changed, and every owners.Every frames
	// (owners.Cache). Nil leaves the view empty.
	Owners owners.Lookup
	// Kernel delivers the lines RDMA drivers write to the kernel log
	// (live.Host.Kernel), for the events view: a feed of its own, read
	// whether frames come or not.
	Kernel <-chan sysfsmon.KernelLine
	// Notices are one-line messages of background parts (trace saying
	// what it cannot see), shown on the status line.
	Notices <-chan string
	// Control steers the pollers: refresh now, pause, interval.
	Control Control
	// Shell is the verbs shell of this process, for the pane; nil leaves
	// the pane out.
	Shell front.Engine
	// Lesson, when set, is the course running in Shell (verbscope
	// learn): the lesson pane beside the shell pane shows it, read
	// after each command.
	Lesson func() Lesson
	// Learn starts the course for `:learn` (in a Cmd: it opens shells):
	// the engine that replaces Shell in the pane, and its Lesson. Nil
	// when the dashboard cannot run it.
	Learn func() (front.Engine, func() Lesson, error)
	// History is the shell's history, loaded by the caller; SaveHistory
	// writes it (it runs in a Cmd).
	History     *front.History
	SaveHistory func(*front.History) error
	// Doctor runs the troubleshooting checklist (in a Cmd: it takes a
	// few seconds and opens devices).
	Doctor func(ctx context.Context) ([]DoctorCheck, error)
	// Fleet asks Prometheus for every host running verbscope export
	// (fleet.Rows); nil when the dashboard was given no --prometheus.
	Fleet func(ctx context.Context) ([]fleet.Host, error)
	// Interval is the refresh interval the pollers start with.
	Interval time.Duration
	// Dev limits the sysfs views to one device (Res is limited by the
	// watch's own query).
	Dev string
	// Replay, when set, is a recording played back: Res and Sys carry
	// its frames, the header says REPLAY and the playback keys steer it.
	Replay Replay
	// ReplayShell delivers, with Replay, the verbs shells' recorded
	// lines up to the reading shown: the shell pane shows them,
	// read-only, while the past is shown.
	ReplayShell <-chan []transcript.Line
	// Verdicts delivers the diagnosis's verdicts on each reading of Res
	// (a diagnose.Diagnoser run off the UI goroutine, which may ask the
	// peers' exporters): latest wins, like the frames. Nil shows none.
	Verdicts <-chan Verdicts
	// Feeds are further sources, each a view's of its own: their
	// readings come to every view as messages of their own type
	// (FeedOf). A view over new data is its file, its registry line and
	// its feed here.
	Feeds []Feed
	// Demo, when set, labels the demo workload that runs beside the
	// dashboard in the lab (shown in the header).
	Demo string
}

// Verdicts are the diagnosis's verdicts on one reading: every QP that
// needs a look, none when all is well.
type Verdicts struct {
	// Seq and Time are the reading's (inspect.Frame.Seq, its snapshot's
	// time).
	Seq  uint64
	Time time.Time
	List []diagnose.Verdict
}

// Control steers the pollers; each call must return at once.
type Control interface {
	Refresh()
	SetPaused(bool)
	SetInterval(time.Duration)
}

// HostInfo is the header's first line.
type HostInfo struct {
	Hostname, Kernel, RDMACore string
	// MemTotal is the host's RAM in bytes (/proc/meminfo), which the
	// owners view's heading measures the pinned memory against; 0 when
	// unknown.
	MemTotal uint64
}

// DoctorCheck is one line of the checklist as the doctor view shows it.
type DoctorCheck struct {
	ID, Title, Verdict, Summary string
	Evidence                    []string
	Fix                         []string
}
