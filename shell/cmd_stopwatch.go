package shell

import (
	"context"
	"fmt"
	"time"
)

func init() {
	register(&command{
		name: "stopwatch", usage: "stopwatch [start|lap]",
		summary: "time a sequence of commands, e.g. a ping-pong's round trip",
		help: `'stopwatch start' (or just 'stopwatch') starts it; 'stopwatch lap'
prints the time since. The time includes the shell's own work between
commands, so it is a teaching clock, not a benchmark (perftest is).

examples:
  open; pd; cq; cq; mr; mr; qp cq=cq1; qp cq=cq2; connect qp1 qp2; post recv qp1 mr1[0:4]; post recv qp2 mr2[0:4]
  stopwatch start; post send qp1 mr1[0:4]; poll cq2; post send qp2 mr2[0:4]; poll cq1; stopwatch lap`,
		pos: []argKind{{name: "action", items: func(*Shell, []string) []Suggestion {
			return enumValues("start", "start or restart the clock", "lap", "time since start")(nil)
		}}},
		run: runStopwatch,
	})
}

func runStopwatch(_ context.Context, s *Shell, a *args) (Result, error) {
	if err := a.posCount(0, 1); err != nil {
		return Result{}, err
	}
	action := "start"
	if len(a.pos) == 1 {
		action = a.pos[0]
	}
	switch action {
	case "start":
		s.clock = time.Now()
		return Result{Text: "stopwatch started"}, nil
	case "lap":
		if s.clock.IsZero() {
			return Result{}, &Error{What: "the stopwatch was never started", Fix: "stopwatch start"}
		}
		d := time.Since(s.clock)
		return Result{Text: fmt.Sprintf("%s since start", d.Round(time.Microsecond)), Data: map[string]any{"elapsed_us": d.Microseconds()}}, nil
	}
	return Result{}, usageErr(a.cmd, "stopwatch takes start or lap, not %q", action)
}
