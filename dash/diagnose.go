package dash

import (
	"context"

	"github.com/verbscope/verbscope/diagnose"
	"github.com/verbscope/verbscope/inspect"
	"github.com/verbscope/verbscope/internal/pace"
	"github.com/verbscope/verbscope/rec"
	"github.com/verbscope/verbscope/ui"
)

// diagnosisQueue is how many readings the diagnosis may fall behind the
// watch before it skips one: asking a peer that does not answer takes
// up to its timeout (2 s by default: diagnose.PeerConfig), a few readings at
// 1 s.
const diagnosisQueue = 8

// diagnosis runs a diagnose.Diagnoser on the watch's frames and returns
// the frames, passed on at once, and each reading's verdicts. The
// diagnosis has a goroutine of its own: it may wait on a peer's
// exporter, and the frames must not wait with it.
func diagnosis(ctx context.Context, in <-chan inspect.Frame, peers diagnose.Peers) (<-chan inspect.Frame, <-chan ui.Verdicts) {
	out := make(chan inspect.Frame, 1)
	verdicts := make(chan ui.Verdicts, 1)
	queue := make(chan inspect.Frame, diagnosisQueue)
	go func() {
		defer close(out)
		defer close(queue)
		for f := range in {
			pace.Deliver(out, f)
			if f.Snapshot == nil {
				continue
			}
			select {
			case queue <- f:
			default:
				// The diagnosis is that far behind: it misses this
				// reading, and the next compares with the one before.
			}
		}
	}()
	go func() {
		defer close(verdicts)
		d := diagnose.New(diagnose.Config{Peers: peers})
		for f := range queue {
			vs := d.Observe(ctx, diagnose.FromFrame(f))
			pace.Deliver(verdicts, ui.Verdicts{Seq: f.Seq, Time: f.Snapshot.Time, List: vs})
		}
	}()
	return out, verdicts
}

// replayVerdicts passes a recording's verdicts on as the dashboard's.
func replayVerdicts(in <-chan rec.Verdicts) <-chan ui.Verdicts {
	out := make(chan ui.Verdicts, 1)
	go func() {
		defer close(out)
		for v := range in {
			pace.Deliver(out, ui.Verdicts(v))
		}
	}()
	return out
}

// openPeers are the peers the diagnosis asks (--peers and the others);
// nil, with the reason on the status line, when their files cannot be
// read: the dashboard then judges on this host's facts only.
func openPeers(cfg diagnose.PeerConfig, notice func(string)) diagnose.Peers {
	p, err := diagnose.NewHTTPPeers(cfg)
	if err != nil {
		notice(err.Error() + " (the diagnosis asks no peer)")
		return nil
	}
	return p
}
